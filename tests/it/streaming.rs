//! Pipelines stream: stages run together, joined by bounded pipes, so a command's output is
//! never held whole. The read cap is set far below the file's size: any stage that read the
//! file whole, or any pipe that held a stage's whole output, would fail with `File too large`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use trumansh::{Config, Session};

const LINE: &[u8] = b"0123456789 the quick brown fox jumps over the lazy dog\n";
const LINES: usize = 200_000; // 11 MB

fn session() -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.txt"), LINE.repeat(LINES)).unwrap();
    let mut config = Config::new(dir.path());
    config.sandbox.read_cap = 1024 * 1024;
    config.sandbox.mount_point = Some("/home/user".into());
    let session = Session::new(config).unwrap();
    (dir, session)
}

#[test]
fn a_large_file_flows_through_a_pipeline() {
    let (_dir, mut s) = session();
    let r = s.run("cat big.txt | head -n 1");
    assert_eq!(
        (r.stdout.as_slice(), r.stderr.as_slice(), r.status),
        (LINE, &b""[..], 0)
    );
    let r = s.run("cat big.txt | cat | wc -l");
    assert_eq!(String::from_utf8_lossy(&r.stdout), format!("{LINES}\n"));
    let r = s.run("cat big.txt | grep -c fox");
    assert_eq!(String::from_utf8_lossy(&r.stdout), format!("{LINES}\n"));
    let r = s.run("wc -c < big.txt");
    assert_eq!(
        String::from_utf8_lossy(&r.stdout),
        format!("{}\n", LINES * LINE.len())
    );
}

#[test]
fn a_large_output_streams_into_a_file() {
    let (dir, mut s) = session();
    let r = s.run("cat big.txt big.txt > twice.txt; wc -l twice.txt");
    assert_eq!(
        String::from_utf8_lossy(&r.stdout),
        format!("{} twice.txt\n", 2 * LINES)
    );
    let written = std::fs::metadata(dir.path().join("twice.txt"))
        .unwrap()
        .len();
    assert_eq!(written, (2 * LINES * LINE.len()) as u64);
}

#[test]
fn a_stage_that_stops_reading_stops_the_writer() {
    // `head` ends after one line; `cat` must notice the closed pipe and stop (as on
    // SIGPIPE), and the pipeline's status is `head`'s.
    let (_dir, mut s) = session();
    let r = s.run("cat big.txt big.txt big.txt | head -c 5; echo \" $?\"");
    assert_eq!(String::from_utf8_lossy(&r.stdout), "01234 0\n");
}

#[test]
fn stages_are_subshells() {
    let (_dir, mut s) = session();
    let r = s.run("cd / | true; X=1 | true; pwd; echo \"[$X]\"");
    assert_eq!(String::from_utf8_lossy(&r.stdout), "/home/user\n[]\n");
    let r = s.run("exit 3 | true; echo still here");
    assert_eq!(
        (String::from_utf8_lossy(&r.stdout).as_ref(), r.exit),
        ("still here\n", None)
    );
}
