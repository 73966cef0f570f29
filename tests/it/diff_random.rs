//! Differential test: random small files and random edits of them (insertions, deletions,
//! changes, moved blocks, repeated and blank lines, missing final newlines), each pair compared
//! by the real GNU `diff` (in bash) and by trumansh's `diff` under several output styles; the
//! outputs and statuses must be byte-identical (the edit scripts are GNU's, not just minimal).

#![allow(clippy::unwrap_used, clippy::panic, clippy::many_single_char_names)]

use std::fmt::Write as _;
use std::process::Command;
use std::time::{Duration, SystemTime};

/// xorshift64*: a fixed sequence, so a failure is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n.max(1) as u64).unwrap()
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len())]
    }
}

fn original(r: &mut Rng) -> Vec<String> {
    let len = [0, 1, 2, 3, 5, 8, 12, 20, 40, 80][r.below(10)];
    let alphabets: [&[&str]; 4] = [
        &["a", "b", "c"],
        &["x", "y", "z", "w", "v", "", "  "],
        &[
            "l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "l9", "l10", "l11",
        ],
        &["{", "}", "", "foo", "bar", "\tbaz"],
    ];
    let alphabet = alphabets[r.below(4)];
    (0..len).map(|_| r.pick(alphabet).to_string()).collect()
}

fn edited(r: &mut Rng, lines: &[String]) -> Vec<String> {
    let mut v = lines.to_vec();
    for _ in 0..[0, 1, 1, 2, 3, 5, 10][r.below(7)] {
        let p = r.below(v.len() + 1);
        let q = (p + 1 + r.below(4)).min(v.len());
        match r.below(4) {
            0 => {
                let n = 1 + r.below(4);
                let new: Vec<String> = (0..n)
                    .map(|_| r.pick(&["a", "b", "new", "", "x", "l3", "}"]).to_string())
                    .collect();
                v.splice(p..p, new);
            }
            1 if p < v.len() => {
                v.drain(p..q);
            }
            2 if p < v.len() => {
                let n = r.below(4);
                let new: Vec<String> = (0..n)
                    .map(|_| r.pick(&["A", "b", "chg", "", "y"]).to_string())
                    .collect();
                v.splice(p..q, new);
            }
            3 if p < v.len() => {
                let block: Vec<String> = v.drain(p..q).collect();
                let at = r.below(v.len() + 1);
                v.splice(at..at, block);
            }
            _ => {}
        }
    }
    v
}

fn write(path: &std::path::Path, lines: &[String], newline: bool) {
    let mut s = lines.join("\n");
    if newline && !lines.is_empty() {
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_704_164_645))
        .unwrap();
}

fn run_both(dir: &std::path::Path, script: &str) -> (Vec<u8>, Vec<u8>) {
    let real = Command::new("bash")
        .args(["-c", script])
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .output()
        .unwrap();
    let ours = Command::new(env!("CARGO_BIN_EXE_trumansh"))
        .arg("--root")
        .arg(dir)
        .args(["-c", script])
        .output()
        .unwrap();
    (real.stdout, ours.stdout)
}

#[test]
fn random_edits_print_as_gnu_diff() {
    let styles = [
        "", "-u", "-c", "-U1", "-U0", "-e", "-b -i", "-w", "-B", "-u -B", "-y -W 50", "-d",
    ];
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let dir = tempfile::tempdir().unwrap();
    let cases = 120;
    let mut script = String::new();
    for i in 0..cases {
        let a = original(&mut r);
        let b = edited(&mut r, &a);
        write(&dir.path().join(format!("a{i}")), &a, r.below(7) != 0);
        write(&dir.path().join(format!("b{i}")), &b, r.below(7) != 0);
    }
    for style in styles {
        for i in 0..cases {
            writeln!(
                script,
                "diff {style} a{i} b{i}; echo \"@@ [{style}] {i} $?\""
            )
            .unwrap();
        }
    }
    let (real, ours) = run_both(dir.path(), &script);
    if real != ours {
        let (real, ours) = (
            String::from_utf8_lossy(&real),
            String::from_utf8_lossy(&ours),
        );
        let split = |t: &str| -> Vec<String> {
            let mut v = Vec::new();
            let mut cur = String::new();
            for line in t.split_inclusive('\n') {
                cur.push_str(line);
                if line.starts_with("@@ [") {
                    v.push(std::mem::take(&mut cur));
                }
            }
            v.push(cur);
            v
        };
        let (rs, os) = (split(&real), split(&ours));
        let k = rs.iter().zip(&os).position(|(x, y)| x != y).unwrap_or(0);
        panic!(
            "first difference (case {k}):\n--- GNU diff\n{}\n--- trumansh\n{}",
            rs.get(k).map_or("", String::as_str),
            os.get(k).map_or("", String::as_str)
        );
    }
}
