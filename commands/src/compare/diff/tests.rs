//! Unit tests of `diff`, with GNU diff 3.8's output.

use crate::CommandName;
use crate::testing::memfs::MemFs;
use crate::testing::world::{World, text};

fn world() -> World {
    World::new(
        MemFs::rooted("/s")
            .file("/s/a", b"a\nb\nc\n")
            .file("/s/b", b"a\nB\nc\nd"),
    )
}

fn run(w: &World, args: &[&str]) -> (String, String, i32) {
    text(&w.run(CommandName::Diff, args))
}

#[test]
fn normal_output() {
    assert_eq!(
        run(&world(), &["a", "b"]),
        (
            "2c2\n< b\n---\n> B\n3a4\n> d\n\\ No newline at end of file\n".into(),
            String::new(),
            1
        )
    );
}
