"""Command line: `python -m kbx_worker zygote --control-fd N`, or `... serve --fd N ...`."""

from __future__ import annotations

import argparse
import os
import socket
import sys
import time


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "zygote":
        inbox = os.environ.get("KBX_COMPILE_INBOX")
        if inbox:  # first: a mount namespace is made before any thread starts
            from . import sandbox

            print(sandbox.bound_inbox(inbox), file=sys.stderr, flush=True)
        from .startup_watch import StartupWatch

        watch = StartupWatch(args.control_fd)  # before the imports, which take seconds
        from . import zygote

        return zygote.main(args.control_fd, watch)
    return _serve(args)


def _serve(args: argparse.Namespace) -> int:
    """One worker on an inherited socket, without a zygote (for tests and debugging)."""
    started = time.perf_counter()
    from . import child, hooks
    from .errors import WorkerError

    config = child.WorkerConfig(args.role, args.device, args.gpu, args.log_path, args.threads)
    try:
        config.validate()
    except WorkerError as e:
        print(f"kbx_worker serve: {e}", file=sys.stderr)
        return 2
    launches = hooks.install()
    return child.serve(socket.socket(fileno=args.fd), config, launches, started)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m kbx_worker", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    zygote = commands.add_parser("zygote", help="import torch and Triton once, fork workers")
    zygote.add_argument("--control-fd", type=int, required=True,
                        help="inherited socket descriptor to kbx (fork requests arrive on it)")
    serve = commands.add_parser("serve", help="run one worker on an inherited socket")
    serve.add_argument("--fd", type=int, required=True, help="inherited socket descriptor")
    serve.add_argument("--role", choices=("candidate", "reference"), required=True)
    serve.add_argument("--device", choices=("cuda", "cpu"), required=True)
    serve.add_argument("--gpu", type=int, default=None, help="CUDA_VISIBLE_DEVICES for the worker")
    serve.add_argument("--log-path", default=None, help="file for the worker's stdout and stderr")
    serve.add_argument("--threads", type=int, default=None, help="torch.set_num_threads value")
    return parser


if __name__ == "__main__":
    code = main()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    # Skip interpreter teardown: a submission's atexit handlers and finalisers never run.
    os._exit(code)
