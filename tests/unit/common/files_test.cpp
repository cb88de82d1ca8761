// Tests of read_file, read_file_tail and write_file_atomic.
#include "kbx/common/files.h"

#include <gtest/gtest.h>

#include <string>

#include "kbx/common/error.h"
#include "support/test_support.h"

namespace kbx {
namespace {

using kbx::testing::ScopedTempDir;
namespace fs = std::filesystem;

using kbx::testing::error_of;

TEST(ReadFile, ReturnsTheBytesIncludingNulsAndCarriageReturns) {
  ScopedTempDir dir;
  std::string bytes("a\0b\r\nc", 6);
  auto path = dir.write("f.bin", bytes);
  EXPECT_EQ(read_file(path), bytes);
}

TEST(ReadFile, ReadsAnEmptyFileAsEmpty) {
  ScopedTempDir dir;
  EXPECT_EQ(read_file(dir.write("empty", "")), "");
}

TEST(ReadFile, MissingFileIsAnIoErrorNamingThePath) {
  ScopedTempDir dir;
  auto path = dir.path() / "missing.txt";
  Error e = error_of([&] { (void)read_file(path); });
  EXPECT_EQ(e.kind(), ErrorKind::io);
  EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
}

TEST(ReadFile, FolderIsAnIoErrorRatherThanAnEmptyFile) {
  ScopedTempDir dir;
  Error e = error_of([&] { (void)read_file(dir.path()); });
  EXPECT_EQ(e.kind(), ErrorKind::io);
  EXPECT_NE(std::string(e.what()).find(dir.path().string()), std::string::npos) << e.what();
}

TEST(ReadFileTail, ReturnsASmallFileWhole) {
  ScopedTempDir dir;
  auto path = dir.write("log", "one\ntwo\n");
  EXPECT_EQ(read_file_tail(path, 100), "one\ntwo\n");
  EXPECT_EQ(read_file_tail(path, 8), "one\ntwo\n");
}

TEST(ReadFileTail, CutsAtTheFirstLineBoundaryInsideTheTailAndMarksTheCut) {
  ScopedTempDir dir;
  auto path = dir.write("log", "line1\nline2\nline3\n");
  // The last 8 bytes are "2\nline3\n": the partial "2" is dropped.
  EXPECT_EQ(read_file_tail(path, 8), "...\nline3\n");
}

TEST(ReadFileTail, KeepsALineThatStartsExactlyAtTheCut) {
  ScopedTempDir dir;
  auto path = dir.write("log", "line1\nline2\n");
  EXPECT_EQ(read_file_tail(path, 6), "...\nline2\n");
}

TEST(ReadFileTail, KeepsTheRawTailWhenItHoldsNoNewline) {
  ScopedTempDir dir;
  auto path = dir.write("log", "abcdefghij");
  EXPECT_EQ(read_file_tail(path, 4), "...ghij");
}

TEST(ReadFileTail, MissingFileGivesEmptyText) {
  ScopedTempDir dir;
  EXPECT_EQ(read_file_tail(dir.path() / "missing.log", 100), "");
}

TEST(ReadFileTail, FolderGivesEmptyText) {
  ScopedTempDir dir;
  EXPECT_EQ(read_file_tail(dir.path(), 100), "");
}

TEST(WriteFileAtomic, CreatesAFile) {
  ScopedTempDir dir;
  auto path = dir.path() / "out.json";
  write_file_atomic(path, "{}");
  EXPECT_EQ(kbx::testing::read_file(path), "{}");
}

TEST(WriteFileAtomic, ReplacesAnExistingFileAndLeavesNoTemporaryBehind) {
  ScopedTempDir dir;
  auto path = dir.write("out.json", "old content that is longer");
  write_file_atomic(path, std::string("new\0", 4));
  EXPECT_EQ(kbx::testing::read_file(path), std::string("new\0", 4));
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) {
    ++entries;
  }
  EXPECT_EQ(entries, 1);
}

TEST(WriteFileAtomic, MissingFolderIsAnIoError) {
  ScopedTempDir dir;
  Error e = error_of([&] { write_file_atomic(dir.path() / "no" / "such" / "file", "x"); });
  EXPECT_EQ(e.kind(), ErrorKind::io);
}

}  // namespace
}  // namespace kbx
