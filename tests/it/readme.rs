//! The examples of README.md and docs/PROTOCOL.md work as printed: each ```sh block under a "Driving it" heading that
//! is followed by a ```json block is run (with `trumansh` the binary under test and
//! `/tmp/trumansh-demo` a fresh copy of `fixtures/trees/basic`), and its output must be the
//! json block, timings aside.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

/// The fenced blocks of a markdown text: (language, body), in order.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("```") {
            match current.take() {
                Some(block) => out.push(block),
                None => current = Some((rest.trim().to_string(), String::new())),
            }
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// Replaces each `"duration_ms":NUMBER` by a fixed value.
fn without_timings(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    let key = "\"duration_ms\":";
    while let Some(i) = rest.find(key) {
        out.push_str(&rest[..i + key.len()]);
        rest = &rest[i + key.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        out.push('0');
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn copy_tree(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Runs every sh block followed by a json block in a markdown file; returns how many.
fn check_examples(doc: &str) -> usize {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(manifest.join(doc)).unwrap();
    let blocks = blocks(&readme);
    let mut checked = 0;
    for pair in blocks.windows(2) {
        let [(lang, script), (next, expected)] = pair else {
            continue;
        };
        if lang != "sh" || next != "json" {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let demo = dir.path().join("demo");
        copy_tree(&manifest.join("fixtures/trees/basic"), &demo);
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_trumansh")).parent().unwrap();
        let script = script.replace("/tmp/trumansh-demo", demo.to_str().unwrap());
        let out = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{script}");
        assert_eq!(
            without_timings(&String::from_utf8_lossy(&out.stdout)),
            without_timings(expected),
            "{doc}'s example:\n{script}"
        );
        checked += 1;
    }
    checked
}

#[test]
fn the_json_lines_examples_print_what_the_docs_show() {
    assert!(
        check_examples("README.md") >= 1,
        "README.md has a JSON-lines example"
    );
    assert!(
        check_examples("docs/PROTOCOL.md") >= 1,
        "PROTOCOL.md has one"
    );
}
