//! The runtime's layering, pinned: every non-test source file in `src/` may use only modules
//! of its own layer or of layers below it, and the syntax (`src/shell/`) uses nothing of the
//! runtime.
//!
//! ```text
//! 8 cli, frontend   main.rs, cli/ (args, owner, replay), frontend/ (line, repl, chunks,
//!                   json, mcp), transcript/; old paths: owner, protocol, mcp, replay
//! 7 session         the public API, one transaction per line
//! 6 interp          walks the AST: lists, pipelines, simple commands, redirections
//! 5 expand          word expansion: uses only the syntax and the base (not exec, txn, sandbox)
//! 4 exec            runs one handler: Emitter, pipes, effects applied and journaled
//! 3 txn             journal, trash
//! 2 sandbox         containment
//! 1 base            limits, policy, audit, io, api
//! - shell           lexer, parser, AST: uses only itself
//! ```
//!
//! `expand` and `exec` are siblings: neither uses the other, and only `interp` and above use
//! `expand`. The test reads every `crate::NAME` path outside comments and `#[cfg(test)]`
//! modules (and test files: `*_tests.rs`, `tests.rs`); a module the table does not know fails
//! too, so that a new module is given its layer.

use std::path::{Path, PathBuf};

/// The layer of a top-level module (as named after `crate::`), or of an item `lib.rs`
/// re-exports at the crate root.
fn layer_of_module(name: &str) -> Option<u8> {
    Some(match name {
        "shell" => SHELL,
        // Items re-exported at the crate root count as their module.
        "io" | "limits" | "policy" | "audit" | "api" | "Stream" | "Sink" | "Captured"
        | "AppliedEffect" | "MAX_EFFECTS" | "Outcome" | "Report" | "Request" => 1,
        "sandbox" => 2,
        // `journal` and `state` are the old public paths of `txn::journal`, `txn::trash`.
        "txn" | "journal" | "state" => 3,
        "exec" => EXEC,
        "expand" => EXPAND,
        "interp" => 6,
        "session" | "Session" | "Config" | "ErrorMode" => 7,
        "cli" | "frontend" | "protocol" | "mcp" | "transcript" | "replay" | "owner" => TOP,
        _ => return None,
    })
}

const SHELL: u8 = 0;
const BASE: u8 = 1;
const EXEC: u8 = 4;
const EXPAND: u8 = 5;
const INTERP: u8 = 6;
const TOP: u8 = 8;

/// Whether a file of layer `from` may use a module of layer `used`.
fn may_use(from: u8, used: u8) -> bool {
    match (from, used) {
        (SHELL, _) => used == SHELL,
        (EXPAND, _) => matches!(used, SHELL | BASE | EXPAND),
        (EXEC, EXPAND) => false,
        (_, EXPAND) => from >= INTERP,
        _ => used <= from,
    }
}

/// The layer of a source file, from its path under `src/`.
fn layer_of_file(rel: &Path) -> Option<u8> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    if first == "shell" {
        return Some(SHELL);
    }
    if first == "lib.rs" {
        return None; // the root declares and re-exports everything
    }
    if first == "main.rs" {
        return Some(TOP);
    }
    layer_of_module(first.trim_end_matches(".rs"))
}

fn layer_name(l: u8) -> &'static str {
    match l {
        0 => "shell (syntax)",
        1 => "base (limits, policy, audit, io, api)",
        2 => "sandbox",
        3 => "txn",
        4 => "exec",
        5 => "expand",
        6 => "interp",
        7 => "session",
        _ => "cli/frontend",
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without its `#[cfg(test)]` items (a test module may use anything) and
/// without comments. A `#[cfg(test)]` item runs from the attribute to the end of the item
/// (a `mod x;` line or a braced block).
fn production_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            // Skip the item that follows.
            let mut depth = 0i32;
            let mut opened = false;
            for (_, l) in lines.by_ref() {
                let code = l.split("//").next().unwrap_or("");
                depth += code.matches('{').count() as i32;
                depth -= code.matches('}').count() as i32;
                opened |= code.contains('{');
                if (opened && depth <= 0) || (!opened && code.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        if t.starts_with("//") {
            continue;
        }
        let code = match line.find("//") {
            // A `//` inside a string literal is rare in `use` lines; good enough here.
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        };
        out.push((i + 1, code.to_string()));
    }
    out
}

/// The module names after every `crate::` in `code`, and those in `use crate::{a, b::c}`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `trumansh_crate::` or similar
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != "self" {
                    names.push(name);
                }
            }
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            names.push(name);
        }
    }
    names
}

#[test]
fn no_module_imports_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 10, "no sources found under {}", src.display());
    let mut problems = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap_or(file);
        let name = rel.to_string_lossy();
        if name.ends_with("_tests.rs") || rel.file_name().is_some_and(|f| f == "tests.rs") {
            continue;
        }
        if rel == Path::new("lib.rs") {
            continue;
        }
        let Some(layer) = layer_of_file(rel) else {
            problems.push(format!(
                "src/{name}: not in the layer table of tests/layers.rs (give it a layer)"
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (line, code) in production_lines(&text) {
            for module in crate_paths(&code) {
                let Some(used) = layer_of_module(&module) else {
                    problems.push(format!(
                        "src/{name}:{line}: `crate::{module}` is not in the layer table of \
                         tests/layers.rs: {}",
                        code.trim()
                    ));
                    continue;
                };
                if !may_use(layer, used) {
                    problems.push(format!(
                        "src/{name}:{line}: {} imports {} (`crate::{module}`): {}",
                        layer_name(layer),
                        layer_name(used),
                        code.trim()
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "a module uses a higher layer:\n{}\n",
        problems.join("\n")
    );
}

#[test]
fn the_scanner_sees_paths_and_groups() {
    assert_eq!(
        crate_paths("use crate::io::{Sink, Stream}; let x = crate::policy::human_bytes(1);"),
        ["io", "policy"]
    );
    assert_eq!(
        crate_paths("use crate::{exec, session::Session};"),
        ["exec", "session"]
    );
    let lines = production_lines(
        "use a;\n#[cfg(test)]\nmod tests {\n use crate::session;\n}\n// crate::mcp\nuse b;\n",
    );
    assert_eq!(
        lines,
        [(1, "use a;".to_string()), (7, "use b;".to_string())]
    );
}

#[test]
fn expand_and_exec_are_siblings() {
    assert!(may_use(INTERP, EXPAND) && may_use(INTERP, EXEC));
    assert!(!may_use(EXEC, EXPAND) && !may_use(EXPAND, EXEC));
    assert!(
        !may_use(EXPAND, 2) && !may_use(EXPAND, 3),
        "expand uses no sandbox, no txn"
    );
    assert!(may_use(EXPAND, SHELL) && may_use(EXPAND, BASE));
    assert!(!may_use(SHELL, EXPAND) && !may_use(SHELL, BASE));
}
