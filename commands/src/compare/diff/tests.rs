//! Unit tests of `diff`, with GNU diff 3.8's output (`LC_ALL=C`, `TZ=UTC`).

use std::time::{Duration, SystemTime};

use crate::CommandName;
use crate::testing::memfs::MemFs;
use crate::testing::world::{World, text};

const OLD: &[u8] = b"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
const NEW: &[u8] = b"a\nB\nc\nd\ne\nf\ng\nh\nj\nk\n";

fn world() -> World {
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_704_164_645);
    World::new(
        MemFs::rooted("/s")
            .file("/s/a", b"a\nb\nc\n")
            .file("/s/b", b"a\nB\nc\nd")
            .file("/s/old", OLD)
            .file("/s/new", NEW)
            .file("/s/r1", b"x\nx\n")
            .file("/s/r2", b"x\nx\nx\n")
            .file("/s/m1", b"}\n\nfoo\n}\n")
            .file("/s/m2", b"}\n\nfoo\n}\n\nbar\n}\n")
            .file("/s/bin", b"x\0y")
            .file("/s/d1/f", b"a\n")
            .file("/s/d2/f", b"b\n")
            .file("/s/d1/o", b"o\n")
            .dir("/s/d1/s")
            .dir("/s/d2/s")
            .times("/s/old", t, t)
            .times("/s/new", t, t),
    )
}

fn run(args: &[&str]) -> (String, String, i32) {
    text(&world().run(CommandName::Diff, args))
}

fn out(s: &str, status: i32) -> (String, String, i32) {
    (s.to_string(), String::new(), status)
}

#[test]
fn normal_output() {
    assert_eq!(
        run(&["a", "b"]),
        out(
            "2c2\n< b\n---\n> B\n3a4\n> d\n\\ No newline at end of file\n",
            1
        )
    );
    assert_eq!(run(&["old", "old"]), out("", 0));
}

#[test]
fn unified_and_context() {
    assert_eq!(
        run(&["-u", "old", "new"]),
        out(
            "--- old\t2024-01-02 03:04:05.000000000 +0000\n+++ new\t2024-01-02 03:04:05.000000000 +0000\n\
             @@ -1,10 +1,10 @@\n a\n-b\n+B\n c\n d\n e\n f\n g\n h\n-i\n j\n+k\n",
            1
        )
    );
    assert_eq!(
        run(&["-U1", "old", "new"]),
        out(
            "--- old\t2024-01-02 03:04:05.000000000 +0000\n+++ new\t2024-01-02 03:04:05.000000000 +0000\n\
             @@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -8,3 +8,3 @@\n h\n-i\n j\n+k\n",
            1
        )
    );
    assert_eq!(
        run(&["-c", "old", "new"]),
        out(
            "*** old\tTue Jan  2 03:04:05 2024\n--- new\tTue Jan  2 03:04:05 2024\n***************\n\
             *** 1,10 ****\n  a\n! b\n  c\n  d\n  e\n  f\n  g\n  h\n- i\n  j\n\
             --- 1,10 ----\n  a\n! B\n  c\n  d\n  e\n  f\n  g\n  h\n  j\n+ k\n",
            1
        )
    );
}

#[test]
fn ed_and_side_by_side() {
    assert_eq!(
        run(&["-e", "old", "new"]),
        out("10a\nk\n.\n9d\n2c\nB\n.\n", 1)
    );
    assert_eq!(
        run(&["-y", "-W", "30", "old", "new"]),
        out(
            "a\t\ta\nb\t      |\tB\nc\t\tc\nd\t\td\ne\t\te\nf\t\tf\ng\t\tg\nh\t\th\ni\t      <\nj\t\tj\n\t      >\tk\n",
            1
        )
    );
}

#[test]
fn hunks_slide_as_gnu_places_them() {
    assert_eq!(run(&["r1", "r2"]), out("2a3\n> x\n", 1));
    assert_eq!(run(&["m1", "m2"]), out("4a5,7\n> \n> bar\n> }\n", 1));
}

#[test]
fn directories() {
    assert_eq!(
        run(&["d1", "d2"]),
        out(
            "diff d1/f d2/f\n1c1\n< a\n---\n> b\nOnly in d1: o\nCommon subdirectories: d1/s and d2/s\n",
            1
        )
    );
    assert_eq!(
        run(&["-r", "d1", "d2"]),
        out("diff -r d1/f d2/f\n1c1\n< a\n---\n> b\nOnly in d1: o\n", 1)
    );
    assert_eq!(
        run(&["-rq", "d1", "d2"]),
        out("Files d1/f and d2/f differ\nOnly in d1: o\n", 1)
    );
}

#[test]
fn troubles_and_brief() {
    assert_eq!(
        run(&["old", "nope"]),
        (
            String::new(),
            "diff: nope: No such file or directory\n".into(),
            2
        )
    );
    assert_eq!(
        run(&["bin", "old"]),
        out("Binary files bin and old differ\n", 1)
    );
    assert_eq!(
        run(&["-q", "old", "new"]),
        out("Files old and new differ\n", 1)
    );
    assert_eq!(
        run(&["-s", "old", "old"]),
        out("Files old and old are identical\n", 0)
    );
    assert_eq!(
        run(&["-u", "-c", "old", "new"]).1,
        "diff: conflicting output style options\ndiff: Try 'diff --help' for more information.\n"
    );
    assert_eq!(
        run(&["old"]).1,
        "diff: missing operand after 'old'\ndiff: Try 'diff --help' for more information.\n"
    );
}
