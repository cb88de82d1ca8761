"""`python -m kbx ...` runs the kbx command."""

from kbx._cli import main

main()
