//! The commands that hold input hold it in bounded memory: `sort` spills sorted runs to
//! scratch files in the state directory (charged to the quota, gone afterwards) and merges
//! them to GNU's output; `uniq`, `tail`, `cut`, `tr`, `tee`, `split`, `xxd` and `rev` stream,
//! and a line (or, for `column`, `diff`, `awk`, `jq`, `split -n` and `xxd -s -N`, what the
//! command holds) past the session's hold cap (the policy's `read_bytes`, made small here)
//! ends with one GNU-style `memory exhausted` while the session answers the next line. Each
//! session runs the binary under an address-space limit (`prlimit --as`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use super::common::{limited, texts};

/// Runs the binary on `root` with `policy`, its input lines given as a file.
fn session(root: &Path, policy: &str, input: &str) -> (String, String, i32) {
    let stdin = root.parent().unwrap().join("stdin");
    fs::write(&stdin, input).unwrap();
    let out = limited(root, Some(policy), &[])
        .stdin(fs::File::open(&stdin).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    texts(&out)
}

/// Lines with a few fields, from a fixed seed: `n` of them.
fn lines(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out = Vec::new();
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(format!("k{:05} {} {}\n", x % 50_000, x % 977, i % 13).as_bytes());
    }
    out
}

fn gnu_sort(args: &[&str], file: &Path) -> Vec<u8> {
    Command::new("sort")
        .env("LC_ALL", "C")
        .args(args)
        .arg(file)
        .output()
        .unwrap()
        .stdout
}

fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap().join("root");
    fs::create_dir(&root).unwrap();
    (tmp, root)
}

fn scratch_left(root: &Path) -> usize {
    fs::read_dir(root.join(".trash/tmp")).map_or(0, Iterator::count)
}

#[test]
fn sort_spills_runs_and_merges_to_gnus_output() {
    let (_tmp, root) = tree();
    // 200,000 lines (about 3.6 MB); a hold cap of 1 MiB makes runs of 256 KiB: a dozen
    // spilled runs, and with -S 16K hundreds, merged in several passes.
    let data = lines(200_000);
    fs::write(root.join("in"), &data).unwrap();
    let cases: &[&[&str]] = &[
        &[],
        &["-k2,2n", "-k1,1r"],
        &["-u", "-k1,1"],
        &["-S", "16K", "-s", "-k3n"],
    ];
    let mut input = String::new();
    for (i, args) in cases.iter().enumerate() {
        writeln!(
            input,
            "sort {} in > out{i}; echo \"status $?\"",
            args.join(" ")
        )
        .unwrap();
    }
    input.push_str("sort -o in -k2n in; echo \"status $?\"\necho ok\n");
    let (out, err, _) = session(&root, "[limits]\nread_bytes = 1048576\n", &input);
    assert_eq!(err, "");
    assert_eq!(out, "status 0\n".repeat(cases.len() + 1) + "ok\n", "{err}");
    let original = root.parent().unwrap().join("original");
    fs::write(&original, &data).unwrap();
    for (i, args) in cases.iter().enumerate() {
        let got = fs::read(root.join(format!("out{i}"))).unwrap();
        assert!(
            got == gnu_sort(args, &original),
            "sort {args:?} differs from GNU"
        );
    }
    // `-o` onto its own input, in chunks.
    assert!(fs::read(root.join("in")).unwrap() == gnu_sort(&["-k2n"], &original));
    assert_eq!(scratch_left(&root), 0);
}

#[test]
fn sort_past_the_quota_while_spilling_fails_as_gnu() {
    let (_tmp, root) = tree();
    let data = lines(200_000);
    fs::write(root.join("in"), &data).unwrap();
    // Room for the input and a little more: the runs do not fit.
    let quota = data.len() + 2_000_000;
    let (out, err, _) = session(
        &root,
        &format!("[limits]\nread_bytes = 1048576\nwrite_quota_bytes = {quota}\n"),
        "sort in | tail -n 1; echo \"status ${PIPESTATUS[0]}\"\necho ok\n",
    );
    assert!(
        err.starts_with("sort: write failed: /tmp/sort")
            && err.ends_with(": Disk quota exceeded\n"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(out, "status 2\nok\n");
    assert_eq!(scratch_left(&root), 0);
    // What was charged was given back: a small sort still spills.
    let (out, err, _) = session(
        &root,
        &format!("[limits]\nread_bytes = 1048576\nwrite_quota_bytes = {quota}\n"),
        "head -n 20000 in | sort -S 64K | wc -l\n",
    );
    assert_eq!((out.as_str(), err.as_str()), ("20000\n", ""));
}

#[test]
fn a_line_past_the_hold_cap_ends_with_one_message_and_streams_stream() {
    let (_tmp, root) = tree();
    // One line of 4 MiB (a comma after its first byte), against a hold cap of 1 MiB.
    let mut line = b"a,".to_vec();
    line.extend(std::iter::repeat_n(b'x', 4 << 20));
    line.push(b'\n');
    fs::write(root.join("line"), &line).unwrap();
    let n = line.len();
    let input = "\
uniq line; echo \"status $?\"
cat line | tail -n 1; echo \"status $?\"
tail -c 5000000 < line | wc -c
sort line; echo \"status $?\"
tac line; echo \"status $?\"
cut -c1-3 line
cut -d, -f2 line | wc -c
cut -d, -f1 line
tail -n 1 line | wc -c
tr x y < line | tr -d y
echo ok
";
    let (out, err, _) = session(&root, "[limits]\nread_bytes = 1048576\n", input);
    assert_eq!(
        err,
        "uniq: memory exhausted\ntail: memory exhausted\ntail: memory exhausted\n\
         sort: memory exhausted\ntac: memory exhausted\n"
    );
    assert_eq!(
        out,
        format!(
            "status 1\nstatus 1\n0\nstatus 2\nstatus 1\na,x\n{}\na\n{n}\na,\nok\n",
            n - 2
        )
    );
}

#[test]
fn input_past_the_hold_cap_ends_each_holding_command_with_one_message() {
    let (_tmp, root) = tree();
    // One line of 4 MiB, and 150,000 short lines (about 2 MB), against a hold cap of 1 MiB.
    let mut line = b"a,".to_vec();
    line.extend(std::iter::repeat_n(b'x', 4 << 20));
    line.push(b'\n');
    fs::write(root.join("line"), &line).unwrap();
    let many = lines(150_000);
    fs::write(root.join("many"), &many).unwrap();
    // Two files each within the read cap whose comparison holds more than the cap.
    fs::write(root.join("m1"), many.get(..700_000).unwrap()).unwrap();
    fs::write(root.join("m2"), many.get(100_000..800_000).unwrap()).unwrap();
    let input = "\
column many; echo \"status $?\"
column -t < line; echo \"status $?\"
rev line; echo \"status $?\"
diff m1 m2; echo \"status $?\"
cat line | diff - m1; echo \"status $?\"
awk '{ print length($0) }' line; echo \"status $?\"
awk '{ a[NR] = $0 } END { print length(a) }' many; echo \"status $?\"
jq -n '[range(1e8)] | length'; echo \"status $?\"
jq -n 'reduce range(40) as $i (\"x\"; . + .) | length'; echo \"status $?\"
jq -R . line; echo \"status $?\"
split -n 2 many part; echo \"status $?\"
xxd -s -2000000 many; echo \"status $?\"
xxd -r < line; echo \"status $?\"
echo alive
";
    let (out, err, _) = session(&root, "[limits]\nread_bytes = 1048576\n", input);
    assert_eq!(
        err,
        "column: memory exhausted\ncolumn: memory exhausted\nrev: memory exhausted\n\
         diff: memory exhausted\ndiff: memory exhausted\n\
         awk: fatal: memory exhausted\n\
         awk: cmd. line:1: (FILENAME=many FNR=50462) fatal: memory exhausted\n\
         jq: error (at <unknown>): memory exhausted\n\
         jq: error (at <unknown>): memory exhausted\n\
         jq: error (at line:0): memory exhausted\n\
         split: memory exhausted\nxxd: memory exhausted\nxxd: memory exhausted\n"
    );
    assert_eq!(
        out,
        "status 1\nstatus 1\nstatus 1\nstatus 2\nstatus 2\nstatus 2\nstatus 2\nstatus 5\n\
         status 5\nstatus 2\nstatus 1\nstatus 2\nstatus 2\nalive\n"
    );
    assert!(!root.join("partaa").exists());
}

#[test]
fn streaming_commands_hold_one_chunk_and_answer_as_gnu() {
    let (_tmp, root) = tree();
    // About 2 MB through tee, split, xxd -r and rev under a hold cap of 1 MiB.
    let many = lines(150_000);
    fs::write(root.join("many"), &many).unwrap();
    let input = "\
cat many | tee t1 t2 | cmp - many && cmp t1 many && cmp t2 many && echo tee ok
head -c 1000 many > t3; tail -c +1001 many | tee -a t3 > /dev/null; cmp t3 many && echo tee -a ok
split -b 1500000 many s_; cat s_aa s_ab | cmp - many && wc -c < s_aa && ls s_*
split -l 100000 many l_; cat l_aa l_ab | cmp - many && wc -l < l_aa
xxd -p many | xxd -r -p | cmp - many && echo xxd -p ok
xxd many | xxd -r | cmp - many && echo xxd ok
rev many | rev | cmp - many && echo rev ok
echo alive
";
    let (out, err, _) = session(&root, "[limits]\nread_bytes = 1048576\n", input);
    assert_eq!(err, "");
    assert_eq!(
        out,
        "tee ok\ntee -a ok\n1500000\ns_aa\ns_ab\n100000\nxxd -p ok\nxxd ok\nrev ok\nalive\n"
    );
}
