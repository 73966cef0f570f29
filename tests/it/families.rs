//! The command crate's rule, pinned: no handler uses another handler. A handler is a module
//! named by a row of the command table (`commands! { … }` in `commands/src/lib.rs`, e.g.
//! `fs::cp`, `text::headtail::head`); it may use the contract, `support/`, its family's
//! shared modules (`fs::target`, `text::headtail`) and its own submodules, never another
//! row's module. `support/`, `contract/` and the family modules use no handler at all; only
//! the table (`lib.rs`, `registry.rs`) names them, to dispatch.
//!
//! The test reads every `crate::…` and `super::…` path outside comments and `#[cfg(test)]`
//! modules, `crate::{a, b::{c, d}}` groups included, and resolves `super` against the file's
//! module. What cp and mv both need lives in `fs/target.rs`, not in `cp.rs`: that is what this
//! test keeps true as the crate grows to a hundred commands.

#![allow(clippy::unwrap_used, clippy::panic, clippy::naive_bytecount)]

use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("commands/src")
}

/// The handler modules named by the command table, as path segments.
fn handlers(lib: &str) -> Vec<Vec<String>> {
    let table = lib
        .split_once("commands! {")
        .map(|(_, rest)| rest.split_once("\n}").map_or(rest, |(t, _)| t))
        .unwrap_or_default();
    table
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            if line.starts_with("//") || line.is_empty() {
                return None;
            }
            // `Variant "name" family::module Kind;`
            let mut words = line.split_whitespace();
            let _variant = words.next()?;
            let name = words.next()?;
            if !name.starts_with('"') {
                return None;
            }
            let path = words.next()?;
            Some(path.split("::").map(str::to_string).collect())
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file below `src` (`fs/ls/mod.rs` -> `fs::ls`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut segs: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = segs.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        segs.push(stem.to_string());
    }
    segs
}

/// The code of a file without comments, string contents and `#[cfg(test)]` modules.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    let mut out = String::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                if b.get(i) == Some(&b'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else {
            out.push(char::from(b[i]));
            i += 1;
        }
    }
    out
}

/// Every path a `crate::`/`super::` reference names, as segments relative to the crate root,
/// with the line it stands on.
fn references(code: &str, module: &[String]) -> Vec<(usize, Vec<String>)> {
    fn ident(s: &[u8], i: &mut usize) -> String {
        let start = *i;
        while *i < s.len() && (s[*i].is_ascii_alphanumeric() || s[*i] == b'_') {
            *i += 1;
        }
        String::from_utf8_lossy(&s[start..*i]).into_owned()
    }
    fn skip_ws(s: &[u8], i: &mut usize) {
        while *i < s.len() && s[*i].is_ascii_whitespace() {
            *i += 1;
        }
    }
    // Parses `a::b::{c, d::e}` at `i` under `prefix`, pushing every full path.
    fn tree(s: &[u8], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut path = prefix;
        loop {
            skip_ws(s, i);
            if s.get(*i) == Some(&b'{') {
                *i += 1;
                loop {
                    skip_ws(s, i);
                    match s.get(*i) {
                        Some(b'}') => {
                            *i += 1;
                            return;
                        }
                        Some(b',') => *i += 1,
                        None => return,
                        _ => {
                            let before = *i;
                            tree(s, i, path.clone(), out);
                            if *i == before {
                                *i += 1;
                            }
                        }
                    }
                }
            }
            let name = ident(s, i);
            if name.is_empty() {
                out.push(path);
                return;
            }
            path.push(name);
            if s[*i..].starts_with(b"::") {
                *i += 2;
            } else {
                out.push(path);
                return;
            }
        }
    }
    let s = code.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let at_word = i == 0 || !(s[i - 1].is_ascii_alphanumeric() || s[i - 1] == b'_');
        let (base, skip) = if at_word && s[i..].starts_with(b"crate::") {
            (Vec::new(), 7)
        } else if at_word && s[i..].starts_with(b"super::") {
            let mut base = module.to_vec();
            let mut j = i;
            while s[j..].starts_with(b"super::") {
                base.pop();
                j += 7;
            }
            (base, j - i)
        } else {
            i += 1;
            continue;
        };
        let line = 1 + s[..i].iter().filter(|&&c| c == b'\n').count();
        i += skip;
        let mut paths = Vec::new();
        tree(s, &mut i, base, &mut paths);
        found.extend(paths.into_iter().map(|p| (line, p)));
    }
    found
}

fn owner<'h>(handlers: &'h [Vec<String>], module: &[String]) -> Option<&'h Vec<String>> {
    handlers.iter().find(|h| module.starts_with(h))
}

/// The violations in the crate below `src`, one line each.
fn violations(src: &Path) -> Vec<String> {
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let handlers = handlers(&lib);
    assert!(handlers.len() >= 30, "the command table was not found");
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut bad = Vec::new();
    for file in files {
        let module = module_of(src, &file);
        if module.is_empty() || module == ["registry"] {
            continue; // lib.rs and the table's macro dispatch to every handler
        }
        let own = owner(&handlers, &module);
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        for (line, path) in references(&code, &module) {
            if let Some(h) = owner(&handlers, &path)
                && Some(h) != own
            {
                let rel = file.strip_prefix(src.parent().unwrap().parent().unwrap());
                bad.push(format!(
                    "{}:{line}: {} uses the handler {} (`{}`)",
                    rel.unwrap().display(),
                    own.map_or_else(|| module.join("::"), |o| o.join("::")),
                    h.join("::"),
                    path.join("::"),
                ));
            }
        }
    }
    bad
}

#[test]
fn no_handler_uses_another_handler() {
    let bad = violations(&src());
    assert!(
        bad.is_empty(),
        "a module uses a command handler that is not its own (move what they share to \
         support/ or the family's shared module):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_scanner_resolves_groups_and_super() {
    let module: Vec<String> = ["fs", "mv"].map(String::from).to_vec();
    let code = code_of(
        "use crate::{Ctx, fs::{cp::plan, target}};\n// crate::text::cat\nlet x = \"crate::text::wc\";\nuse super::rm::walk;\n",
    );
    let refs = references(&code, &module);
    let paths: Vec<String> = refs
        .iter()
        .map(|(l, p)| format!("{l}:{}", p.join("::")))
        .collect();
    assert_eq!(
        paths,
        ["1:Ctx", "1:fs::cp::plan", "1:fs::target", "4:fs::rm::walk"]
    );
    let handlers = vec![vec!["fs".to_string(), "cp".to_string()]];
    assert!(owner(&handlers, &refs[1].1).is_some());
    assert!(owner(&handlers, &refs[2].1).is_none());
}
