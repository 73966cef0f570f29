//! Printing functions back: bash's layout, and round trips (print, parse the text again,
//! print again: the same text).
#![allow(clippy::expect_used)]

use super::function_text;
use crate::shell::ast::{Command, FunctionDef};
use crate::shell::parse_at_eof;

/// The functions an input defines, in order.
fn functions(src: &str) -> Vec<std::sync::Arc<FunctionDef>> {
    let parsed = parse_at_eof(src.as_bytes(), 1).expect("parses");
    let mut out = Vec::new();
    for item in &parsed.script.items {
        for p in std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p)) {
            for c in &p.commands {
                if let Command::Function(def) = c {
                    out.push(std::sync::Arc::clone(def));
                }
            }
        }
    }
    out
}

fn print(src: &str) -> String {
    let defs = functions(src);
    let def = defs.first().expect("a function");
    String::from_utf8(function_text(def)).expect("utf-8")
}

/// Prints the function, parses the text again and prints it again: the same text.
fn round_trip(src: &str) -> String {
    let first = print(src);
    let second = print(&first);
    assert_eq!(first, second, "round trip of {src:?}");
    first
}

#[test]
fn brief_example() {
    let src = "f() { echo   \"$(echo  hi;ls)\"   a\\ b  $((1+  2)) ; if true; then x=1; fi; for i in a b; do echo $i | cat; done >/dev/null 2>&1; }";
    assert_eq!(
        round_trip(src),
        "f () \n{ \n    echo \"$(echo hi; ls)\" a\\ b $((1+  2));\n    if true; then\n        x=1;\n    fi;\n    for i in a b;\n    do\n        echo $i | cat;\n    done > /dev/null 2>&1\n}"
    );
}

#[test]
fn redirections() {
    assert_eq!(
        round_trip(
            "g() { a=1 b=(x  y) cmd >|f 3>&- 4<&- &>o &>>p 5<>q 2>&1 <&3 >&e <<<\"s\" <>r >&2; }"
        ),
        "g () \n{ \n    a=1 b=(x y) cmd >| f 3>&- 4>&- &> o &>> p 5<> q 2>&1 0<&3 >&e <<< \"s\" 0<> r 1>&2\n}"
    );
    assert_eq!(round_trip("g() { cat <&-; }"), "g () \n{ \n    cat 0>&-\n}");
}

#[test]
fn here_documents() {
    let src = "h() { cat <<EOF\nbody $x\nEOF\ncat <<-'E'\n\ttabbed\n\tE\necho after; }";
    assert_eq!(
        round_trip(src),
        "h () \n{ \n    cat <<EOF\nbody $x\nEOF\n\n    cat <<-'E'\ntabbed\nE\n\n    echo after\n}"
    );
    assert_eq!(
        round_trip("a5() { cat <<A | cat <<B | cat\na\nA\nb\nB\n}"),
        "a5 () \n{ \n    cat <<A |\na\nA\n  cat <<B |\nb\nB\n  cat\n}"
    );
    assert_eq!(
        round_trip("f() { cat <<\"E\"\n$(x  y)\nE\n}"),
        "f () \n{ \n    cat <<'E'\n$(x  y)\nE\n\n}"
    );
}

#[test]
fn lists_and_groups() {
    assert_eq!(
        round_trip("i() { ! a | b |& c && d || e & f; g; }"),
        "i () \n{ \n    ! a | b 2>&1 | c && d || e & f;\n    g\n}"
    );
    assert_eq!(
        round_trip("j() { { a; { b; }; }; ( c; d ); (e); }"),
        "j () \n{ \n    { \n        a;\n        { \n            b\n        }\n    };\n    ( c;\n    d );\n    ( e )\n}"
    );
    assert_eq!(
        round_trip("a6() { a &\nb; c & }"),
        "a6 () \n{ \n    a & b;\n    c &\n}"
    );
}

#[test]
fn compound_commands() {
    assert_eq!(
        round_trip("k() { case $x in a|b) echo 1;; c) echo 2;& d) ;;& *) echo d; esac; }"),
        "k () \n{ \n    case $x in \n        a | b)\n            echo 1\n        ;;\n        c)\n            echo 2\n        ;&\n        d)\n\n        ;;&\n        *)\n            echo d\n        ;;\n    esac\n}"
    );
    assert_eq!(
        round_trip(
            "l() { for ((i=0;i<3;i++)); do echo $i; done; for ((;;)); do break; done; while a; do b; done; until c; do d; done; }"
        ),
        "l () \n{ \n    for ((i=0; i<3; i++))\n    do\n        echo $i;\n    done;\n    for ((1; 1; 1))\n    do\n        break;\n    done;\n    while a; do\n        b;\n    done;\n    until c; do\n        d;\n    done\n}"
    );
    assert_eq!(
        round_trip(
            "m() { (( x = 1 +2 )); [[ -f $a && ( $b == c* || ! $d =~ ^x(y|z)$ ) ]]; [[ a<b ]]; [[ x ]]; }"
        ),
        "m () \n{ \n    (( x = 1 +2 ));\n    [[ -f $a && ( $b == c* || ! $d =~ ^x(y|z)$ ) ]];\n    [[ a < b ]];\n    [[ -n x ]]\n}"
    );
    assert_eq!(
        round_trip("s() { if a; then b; elif c; then d; else e; fi; }"),
        "s () \n{ \n    if a; then\n        b;\n    else\n        if c; then\n            d;\n        else\n            e;\n        fi;\n    fi\n}"
    );
    assert_eq!(
        round_trip("v() { for x; do :; done; for y in; do :; done; }"),
        "v () \n{ \n    for x in \"$@\";\n    do\n        :;\n    done;\n    for y in ;\n    do\n        :;\n    done\n}"
    );
}

#[test]
fn function_forms() {
    assert_eq!(
        round_trip("function n { echo n; }"),
        "n () \n{ \n    echo n\n}"
    );
    assert_eq!(
        round_trip("t() ( echo sub )"),
        "t () \n{ \n    ( echo sub )\n}"
    );
    assert_eq!(
        round_trip("u() { :; } >/dev/null"),
        "u () \n{ \n    :\n} > /dev/null"
    );
    assert_eq!(
        round_trip("p() { q() { echo q; }; function r { echo r; }; }"),
        "p () \n{ \n    function q () \n    { \n        echo q\n    };\n    function r () \n    { \n        echo r\n    }\n}"
    );
    assert_eq!(
        round_trip("w() { # comment\necho hi # another\n}"),
        "w () \n{ \n    echo hi\n}"
    );
}

#[test]
fn substitutions() {
    assert_eq!(
        round_trip("a1() { x=$( { a; b; } ); y=$(if a; then b; fi); z=$( (sub) ); w=$(a\nb\nc); }"),
        "a1 () \n{ \n    x=$({ a; b; });\n    y=$(if a; then\n    b;\nfi);\n    z=$( ( sub ));\n    w=$(a\nb\nc)\n}"
    );
    assert_eq!(
        round_trip(
            "a2() { echo $(( $(echo  1) + 2 )) ${x:-$(echo   d)} \"${y:-$(echo   e)}\" `echo  f` <(ls  -l); }"
        ),
        "a2 () \n{ \n    echo $(( $(echo 1) + 2 )) ${x:-$(echo d)} \"${y:-$(echo e)}\" `echo  f` <(ls -l)\n}"
    );
    assert_eq!(
        round_trip("b() { x=$( ); echo a\\\nb; }"),
        "b () \n{ \n    x=$();\n    echo ab\n}"
    );
}

#[test]
fn long_chains_print_without_deep_recursion() {
    let n = 20_000;
    let mut src = String::from("f() { ");
    for _ in 0..n {
        src.push_str("a && b | c; ");
    }
    src.push_str("if a; then b");
    // Each `elif` is one level deeper (as bash prints it): the text grows as its square.
    for _ in 0..n / 20 {
        src.push_str("; elif c; then d");
    }
    src.push_str("; fi; }");
    let text = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let defs = functions(&src);
            defs.first().map(|d| function_text(d).len())
        })
        .expect("spawn")
        .join()
        .expect("no overflow");
    assert!(text.unwrap_or(0) > n * 10);
}

#[test]
fn comsub_layout() {
    assert_eq!(
        round_trip("f() { x=$(cat <<E\nhi $y\nE\n); y=$(a | b; c && d\ne &); }"),
        "f () \n{ \n    x=$(cat <<E\nhi $y\nE\n);\n    y=$(a | b; c && d\ne &)\n}"
    );
    assert_eq!(
        round_trip("f() { echo $'a\\'b' $'\\x27' $\"c\"; }"),
        "f () \n{ \n    echo 'a'\\''b' \\' \"c\"\n}"
    );
}

#[test]
fn a_text_growing_with_the_square_of_its_length_is_cut() {
    // 4,000 `elif`s indented one level deeper each: about 32 MB unbounded.
    let mut src = String::from("f() { if a; then b");
    for _ in 0..4000 {
        src.push_str("; elif c; then d");
    }
    src.push_str("; fi; }");
    let defs = functions(&src);
    let len = defs.first().map_or(0, |d| function_text(d).len());
    assert!(len >= super::MAX_TEXT, "{len}");
    assert!(len < super::MAX_TEXT + 64 * 1024, "{len}");
}
