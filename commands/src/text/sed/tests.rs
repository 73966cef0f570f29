//! Unit tests: expectations from GNU sed 4.9 under `LC_ALL=C`.

use crate::CommandName;
use crate::testing::world::{World, text};

fn sed(stdin: &str, args: &[&str]) -> (String, String, i32) {
    let w = World::empty().stdin(stdin.as_bytes());
    text(&w.run(CommandName::Sed, args))
}

fn out(stdin: &str, args: &[&str]) -> String {
    sed(stdin, args).0
}

#[test]
fn substitutions_as_gnu() {
    assert_eq!(out("abcd\n", &["-E", "s/a|ab/X/"]), "Xcd\n");
    assert_eq!(out("aaa\n", &["-E", "s/(a*)*/<\\1>/"]), "<aaa>\n");
    assert_eq!(out("baaac\n", &["s/a*/x/g"]), "xbxcx\n");
    assert_eq!(out("abc\n", &["s/b*/x/2"]), "axc\n");
    assert_eq!(out("hello\n", &["s/l/L/2g"]), "helLo\n");
    assert_eq!(
        out(
            "hello world\n",
            &["-E", "s/(\\w+) (\\w+)/\\U\\2\\E \\u\\1/"]
        ),
        "WORLD Hello\n"
    );
    assert_eq!(out("foo bar\n", &["s/\\w\\+/\\u&/g"]), "Foo Bar\n");
    assert_eq!(out("abc\n", &["-E", "s/(b)|(c)/[\\2]/g"]), "a[][c]\n");
    assert_eq!(out("a\tb\n", &["s/[\\t]/X/"]), "aXb\n");
    assert_eq!(out("x\n", &["s/x/a\\\nb/"]), "a\nb\n");
    assert_eq!(out("a\nb\n", &["N;s/\\(.*\\)\\n\\(.*\\)/\\2\\1/"]), "ba\n");
}

#[test]
fn commands_as_gnu() {
    assert_eq!(out("1\n2\n3\n", &["-n", "$="]), "3\n");
    assert_eq!(out("a\nb", &["p"]), "a\na\nb\nb");
    assert_eq!(out("a\nb", &["$a foo"]), "a\nb\nfoo\n");
    assert_eq!(out("x\n", &["1a\\   foo"]), "x\n   foo\n");
    assert_eq!(out("x\n", &["1a   foo\\tbar\\\\z"]), "x\nfoo\tbar\\z\n");
    assert_eq!(out("1\n2\n", &["N;N;s/\\n/+/"]), "1\n2\n");
    assert_eq!(out("1\n2\n3\n4\n5\n", &["-n", "2{p;q}"]), "2\n");
    assert_eq!(
        sed("1\n2\n3\n4\n5\n", &["3q5"]),
        ("1\n2\n3\n".into(), String::new(), 5)
    );
    assert_eq!(out("1\n2\n3\n", &["2Q"]), "1\n");
    assert_eq!(
        out("1\n2\n3\n4\n5\n6\n", &["-n", "2,+2p;5,~4p"]),
        "2\n3\n4\n5\n6\n"
    );
    assert_eq!(out("1\n2\n3\n", &["-n", "0,/1/p;2,1p"]), "1\n2\n");
    assert_eq!(out("1\n2\n3\n4\n", &["$!N;P;D"]), "1\n2\n3\n4\n");
    assert_eq!(out("1\n2\n3\n", &["1!G;h;$!d"]), "3\n2\n1\n");
    assert_eq!(out("abc\n", &["y/abc/\\n\\tz/"]), "\n\tz\n");
    assert_eq!(out("a\tb\n", &["-n", "l"]), "a\\tb$\n");
    assert_eq!(out("x\u{1}\\\n", &["-n", "l"]), "x\\001\\\\$\n");
    assert_eq!(
        out("aaaaaaaaaaaaaaaaaaaa\n", &["-n", "l 10"]),
        "aaaaaaaaa\\\naaaaaaaaa\\\naa$\n"
    );
}

#[test]
fn errors_as_gnu() {
    let e = |args: &[&str]| {
        let (_, err, st) = sed("", args);
        (err, st)
    };
    assert_eq!(
        e(&["-e", "a"]),
        (
            "sed: -e expression #1, char 1: expected \\ after `a', `c' or `i'\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["bx"]),
        ("sed: can't find label for jump to `x'\n".into(), 4)
    );
    assert_eq!(
        e(&["}"]),
        ("sed: -e expression #1, char 1: unexpected `}'\n".into(), 1)
    );
    assert_eq!(
        e(&["{p"]),
        ("sed: -e expression #1, char 0: unmatched `{'\n".into(), 1)
    );
    assert_eq!(
        e(&["1,2q"]),
        (
            "sed: -e expression #1, char 4: command only uses one address\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["s/a/\\1/"]),
        (
            "sed: -e expression #1, char 7: invalid reference \\1 on `s' command's RHS\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["k"]),
        (
            "sed: -e expression #1, char 1: unknown command: `k'\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["-e", "p", "-e", "y/ab/a/"]),
        (
            "sed: -e expression #2, char 7: strings for `y' command are different lengths\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["0p"]),
        (
            "sed: -e expression #1, char 2: invalid usage of line address 0\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["/x"]),
        (
            "sed: -e expression #1, char 2: unterminated address regex\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["s/x/y/gg"]),
        (
            "sed: -e expression #1, char 8: multiple `g' options to `s' command\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["s/x/y/k"]),
        (
            "sed: -e expression #1, char 7: unknown option to `s'\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["p x"]),
        (
            "sed: -e expression #1, char 3: extra characters after command\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["+1p"]),
        (
            "sed: -e expression #1, char 2: invalid usage of +N or ~N as first address\n".into(),
            1
        )
    );
    assert_eq!(
        e(&["s/a/b"]),
        (
            "sed: -e expression #1, char 5: unterminated `s' command\n".into(),
            1
        )
    );
    assert_eq!(e(&["-i", "p"]), ("sed: no input files\n".into(), 4));
    assert_eq!(
        sed("", &["p", "nofile"]),
        (
            String::new(),
            "sed: can't read nofile: No such file or directory\n".into(),
            2
        )
    );
}

#[test]
fn random_scripts_never_panic() {
    // A small deterministic fuzz of the parser and the regex engine (fuzz/ has the real one).
    let alphabet: &[u8] = b"sy/\\()[]{}*+?.^$|&123abnNpPdDgGhHxlq=!,;~:btT#0 \n\tiIMmwre<>-";
    let mut seed: u64 = 0x5eed;
    for _ in 0..20_000 {
        let mut script = Vec::new();
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let len = (seed >> 59) as usize + 1;
        for _ in 0..len {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let k = (seed >> 33) as usize % alphabet.len();
            script.push(alphabet[k]);
        }
        let _ = super::fuzz_compile(&script, seed & 1 == 1, b"abc aab\nxyz (a) [b]\n");
    }
}
