//! The three ways a script reaches the shell — `-c STRING`, a script FILE, standard input —
//! each case run by real bash and by the trumansh binary in the same way, on an empty
//! directory: stdout, stderr and the exit status must match byte for byte. What differs
//! between the three is what this covers: which errors end the shell and with what status,
//! `$-`, `BASH_SOURCE` and `FUNCNAME`, and the name an error inside a function is given.
//! Standard input is line mode, an agent's session, which deliberately goes on after an
//! error that ends a non-interactive bash (docs/ARCHITECTURE.md): those cases are checked
//! against the status bash's interactive `$?` would have, not run by bash.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::Path;
use std::process::Command;

use crate::common;

#[derive(Clone, Copy, Debug)]
enum Mode {
    Command,
    File,
    Stdin,
}

/// Runs `script` in `dir` as `sh -c script`, `sh s.sh` or `sh < s.sh`, `sh` being bash or
/// trumansh.
fn run(shell: &str, dir: &Path, mode: Mode, script: &str) -> (String, String, i32) {
    run_with(shell, dir, mode, script, &[])
}

/// [`run`] with arguments after the script (`-c script ARGS`, `s.sh ARGS`).
fn run_with(
    shell: &str,
    dir: &Path,
    mode: Mode,
    script: &str,
    args: &[&str],
) -> (String, String, i32) {
    std::fs::write(dir.join("s.sh"), script).unwrap();
    let mut c = if shell == "bash" {
        Command::new("bash")
    } else {
        let mut c = Command::new(env!("CARGO_BIN_EXE_trumansh"));
        c.arg("--root")
            .arg(dir)
            .arg("--state-dir")
            .arg(dir.join("..").join("state"));
        c
    };
    c.current_dir(dir)
        .env_clear()
        .env("LC_ALL", "C")
        .env("PATH", trumansh::session::PATH);
    match mode {
        Mode::Command => {
            c.arg("-c").arg(script);
        }
        Mode::File => {
            c.arg("s.sh");
        }
        Mode::Stdin => {}
    }
    c.args(args);
    let mut child = common::spawn_with_pipes(&mut c);
    let input = if matches!(mode, Mode::Stdin) {
        script
    } else {
        ""
    };
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    common::texts(&child.wait_with_output().unwrap())
}

/// Scripts whose every line must run as in bash, in each of the three modes.
const AGREE: &[&str] = &[
    // The name an error inside a function gets: `BASH_SOURCE[0]` (`environment` for a `-c`
    // string, `main` for standard input, the file's name), else `$0`.
    "f() { cat nope; echo $((1/0)); echo in; }\nf; echo \"after $?\"\necho \"l3 $?\"\n",
    "f() { echo \"src=${BASH_SOURCE[*]} fn=${FUNCNAME[*]} ln=${BASH_LINENO[*]} 0=$0\"; }\nf\n",
    "echo \"top=${BASH_SOURCE[*]}/${#BASH_SOURCE[@]} flags=$-\"\n",
    "g() { (( 1/0 )); echo \"g $?\"; }\nf() { g; }\nf\n",
    // The call stack: `caller`, and a file `source`d in a function and at the top.
    "f() { caller; echo \"rc $?\"; caller 0; caller 1; echo \"rc1 $?\"; caller x; echo \"rcx $?\"; }\n\
     g() { f; }\ng\ncaller; echo \"top $?\"\ncaller 0; echo \"top0 $?\"\n",
    "printf 'echo \"F=${FUNCNAME[*]} L=${BASH_LINENO[*]} S=${BASH_SOURCE[*]}\"; caller 0; caller\\n' \
     > inc.sh\nh() { source inc.sh; }\nh\nsource inc.sh\necho \"$FUNCNAME|$BASH_SOURCE|$BASH_LINENO\"\n",
    // A here-document whose delimiter ends the input without a newline.
    "cat <<EOF\nx\nEOF",
    "cat <<-'EOF'\n\tx $y\n\tEOF",
    // `BASH_REMATCH`, indirection to an element, `set -u` with arrays, `SHLVL`.
    "[[ abcd =~ b(c)(x)?(d) ]]; declare -p BASH_REMATCH; [[ a =~ z ]]; declare -p BASH_REMATCH\n",
    "a=(x 'y z'); r='a[1]'; echo \"${!r}\"; r='a[@]'; printf '<%s>' \"${!r}\"; echo\n",
    "set -u; a=(); echo \"${a[@]}|${b[*]}|${a[@]:1}\" ok; echo ${#c[@]}; echo same\necho \"next $?\"\n",
    "echo $SHLVL; bash -c 'echo $SHLVL'; (echo $SHLVL)\n",
    "a=(1); declare -A h=([k]=v); e=(); for v in a a[0] a[1] a[@] h[k] h[j] h[@] e[@] 'a[x+0]' a[-1] nope; do [[ -v $v ]]; echo \"$v $?\"; done\n",
    // `unset` of every element, and of a readonly array's.
    "a=(1 2 3); unset 'a[*]'; declare -p a; declare -A m=([x]=1); unset 'm[@]'; declare -p m\n\
     x=1; unset 'x[@]'; echo \"rc $?\"; unset 'nope[@]'; echo \"rc $?\"\n\
     readonly -a r=(1 2); unset 'r[0]'; echo \"rc $?\"; unset 'r[@]'; echo \"rc $?\"; declare -p r\n",
    // Readonly variables against `declare`, `typeset`, `local`.
    "readonly X=1; readonly X=2; echo \"rc $?\"; declare X; echo \"rc $?\"\n\
     f() { local X; echo \"in $X $?\"; local X=5; echo \"in2 $X $?\"; declare X=6; echo \"in3 $?\"; }\n\
     f; typeset X=9; echo \"rc $?\"; typeset -Z y; typeset -p nope\n",
    // `exit` without an operand exits with `$?`.
    "(false; exit); echo \"sub $?\"; x=$(false; exit); echo \"cs $?\"; false; exit\necho no\n",
    // The status a shell ends with after its EXIT trap; `BASH_VERSINFO`.
    "trap 'echo \"trapped $?\"' EXIT; false\n",
    "trap 'echo t; exit 5' EXIT; false\n",
    "declare -p BASH_VERSINFO; echo \"${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}\"\n",
    // Errors that abandon the line only, in every mode.
    ": ${x!}; echo same\necho \"next $?\"\n",
    "x=abc; : ${x:1:-5}; echo same\necho \"next $?\"\n",
    "readonly r=1; r=2; echo same\necho \"next $?\"\n",
    "echo $((1/0)); echo same\necho \"next $?\"\n",
    // In a subshell, `$(...)` or a child shell, the errors that end a shell end it, with
    // bash's status (127 for a `-c` shell's own expansion error).
    "( : ${x?}; echo in ); echo \"sub $?\"; v=$( set -u; : $q ); echo \"cs $?\"\n",
    "bash -c ': ${x?}; echo no'; echo \"child $?\"; bash -c 'set -e; false; echo no'; echo \"c2 $?\"\n",
    "(set -u; echo $q); echo \"sub $?\"; (x=1; : ${x@Z}); echo \"sub2 $?\"\n",
    "set -e; x=$(false); echo \"not reached $?\"\n",
    "set -e; false || echo \"or $?\"; ! true; echo \"bang $?\"\n",
];

/// Scripts that end a non-interactive bash part-way; line mode goes on after the error.
const END: &[&str] = &[
    "f() { : ${x?u}; echo in; }\nf; echo \"after $?\"\necho \"l3 $?\"\n",
    "set -e; false; echo \"after $?\"\necho l2\n",
    "set -u; echo $nope; echo \"after $?\"\necho \"l2 $?\"\n",
    "set -u; echo ${a[1]}; echo \"after $?\"\necho \"l2 $?\"\n",
    "trap 'echo \"bye $?\"' EXIT; : ${x?}; echo no\necho l2\n",
    "x=1; : ${x@Z}; echo same\necho \"l2 $?\"\n",
    "for i in 1 2; do echo $i; : ${x:?empty}; done\necho \"l2 $?\"\n",
    "f() { set -e; false; echo in; }\nf\necho \"l2 $?\"\n",
];

fn compare(modes: &[Mode], scripts: &[&str], failures: &mut Vec<String>) {
    for &mode in modes {
        for script in scripts {
            let base = tempfile::tempdir().unwrap();
            let dir = base.path().join("box");
            std::fs::create_dir(&dir).unwrap();
            let theirs = run("bash", &dir, mode, script);
            let ours = run("trumansh", &dir, mode, script);
            if theirs != ours {
                failures.push(format!(
                    "{mode:?} {script:?}\n  bash:     {theirs:?}\n  trumansh: {ours:?}"
                ));
            }
        }
    }
}

#[test]
fn scripts_run_as_bash_runs_them_in_each_mode() {
    let mut failures = Vec::new();
    compare(
        &[Mode::Command, Mode::File, Mode::Stdin],
        AGREE,
        &mut failures,
    );
    compare(&[Mode::Command, Mode::File], END, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn line_mode_goes_on_after_an_error_that_ends_a_script() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("box");
    std::fs::create_dir(&dir).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        (
            "set -u; echo $nope; echo \"after $?\"\necho \"l2 $?\"\n",
            "l2 1\n",
            "bash: line 1: nope: unbound variable\n",
        ),
        (
            "f() { : ${x?u}; echo in; }\nf; echo \"after $?\"\necho \"l3 $?\"\n",
            "l3 1\n",
            "main: line 1: x: u\n",
        ),
        (
            "set -e; false; echo \"after $?\"\necho \"l2 $?\"\n",
            "l2 1\n",
            "",
        ),
        (
            "x=1; : ${x@Z}; echo same\necho \"l2 $?\"\n",
            "l2 1\n",
            "bash: line 1: ${x@Z}: bad substitution\n",
        ),
    ];
    for (script, out, err) in cases {
        let (o, e, status) = run("trumansh", &dir, Mode::Stdin, script);
        assert_eq!(
            (o.as_str(), e.as_str(), status),
            (*out, *err, 0),
            "{script:?}"
        );
    }
}

#[test]
fn arguments_reach_the_script_as_in_bash() {
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("box");
    std::fs::create_dir(&dir).unwrap();
    let script = "echo \"$0|$1|$#|$*\"; shift; echo \"$@\"; : ${x?}\n";
    for (mode, args) in [
        (Mode::Command, &["name", "a b", "-c", "--x"][..]),
        (Mode::Command, &["name"][..]),
        (Mode::File, &["one", "-e", "--", "three"][..]),
    ] {
        let theirs = run_with("bash", &dir, mode, script, args);
        let ours = run_with("trumansh", &dir, mode, script, args);
        assert_eq!(ours, theirs, "{mode:?} {args:?}");
    }
}
