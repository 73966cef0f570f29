//! Unit tests: expectations from GNU awk 5.2 (`gawk`, `LC_ALL=C`) on the same input.

use crate::CommandName;
use crate::testing::world::{World, text, texts};

fn awk(w: &World, args: &[&str]) -> (String, String, i32) {
    text(&w.run(CommandName::Awk, args))
}

fn awk_in(input: &str, args: &[&str]) -> (String, String, i32) {
    let w = World::new(texts()).stdin(input.as_bytes());
    awk(&w, args)
}

#[test]
fn one_liners_as_gawk() {
    for (input, args, want) in [
        ("1 2\n3 4\n", &["{s+=$2} END{print s}"][..], "6\n"),
        ("a b c\n", &["{print $3, $1}"], "c a\n"),
        ("a\nb\na\n", &["!seen[$0]++"], "a\nb\n"),
        ("x y\n", &["{$2=\"Z\"; print; print NF}"], "x Z\n2\n"),
        (
            "a b\n",
            &["{$5=\"x\"; print; print NF; NF=2; print}"],
            "a b   x\n5\na b\n",
        ),
        ("a:b:c\n", &["-F:", "{print $2}"], "b\n"),
        ("a\tb c\n", &["-Ft", "{print $2}"], "\n"),
        ("a\tb c\n", &["-F", "\\t", "{print $2}"], "b c\n"),
        ("1\n2\n3\n4\n", &["NR==2,NR==3"], "2\n3\n"),
        (
            "",
            &["BEGIN{print -1 \" \" -2; print 1 \" \" -1; print 2^-1, -2^2}"],
            "-1-2\n1-1\n0.5 -4\n",
        ),
        (
            "",
            &["BEGIN{x = 0.1; print x+0.2, 1/3, 2^53, 1e20, 011, 0x11}"],
            "0.3 0.333333 9007199254740992 100000000000000000000 9 17\n",
        ),
        (
            "",
            &["BEGIN{s=\"hello\"; print gensub(/(l+)/, \"<\\\\1>\", \"g\", s)}"],
            "he<ll>o\n",
        ),
        (
            "",
            &["BEGIN{s=\"abc\"; gsub(/x*/,\"-\",s); print s}"],
            "-a-b-c-\n",
        ),
        (
            "",
            &["BEGIN{n=split(\"a:b:c\",a,\":\"); print n, a[1], a[3]}"],
            "3 a c\n",
        ),
        (
            "",
            &["BEGIN{print match(\"foobar\", /o+/), RSTART, RLENGTH}"],
            "2 2 2\n",
        ),
        (
            "",
            &["BEGIN{print substr(\"hello\",2,3), index(\"hello\",\"ll\"), length(\"abc\")}"],
            "ell 3 3\n",
        ),
        (
            "",
            &["BEGIN{printf \"%5.2f|%-4s|%03d|%c\\n\", 3.14159, \"ab\", 7, 65}"],
            " 3.14|ab  |007|A\n",
        ),
        (
            "",
            &["function f(n){return n<2?n:f(n-1)+f(n-2)} BEGIN{print f(15)}"],
            "610\n",
        ),
        (
            "",
            &["function g(a){a[\"k\"]=1} BEGIN{g(arr); print length(arr), (\"k\" in arr)}"],
            "1 1\n",
        ),
        (
            "p q\n\nr s\nt\n",
            &["BEGIN{RS=\"\"}{print NR\": \"$1\"-\"$NF}"],
            "1: p-q\n2: r-t\n",
        ),
        (
            "a1b22c\n",
            &["BEGIN{RS=\"[0-9]+\"}{print $0 \"|\" RT}"],
            "a|1\nb|22\nc\n|\n",
        ),
        (" 12 \n", &["{print ($1 < 2), ($1 == 12)}"], "0 1\n"),
        (
            "",
            &[
                "BEGIN{x[1,2]=3; for (k in x) {split(k,p,SUBSEP); print p[1], p[2]}; if ((1,2) in x) print \"yes\"}",
            ],
            "1 2\nyes\n",
        ),
        (
            "",
            &["BEGIN { while (i < 3) { i++; if (i==2) continue; print i } }"],
            "1\n3\n",
        ),
        (
            "",
            &["BEGIN { do { k++ } while (k < 5); print k; exit 0 } END { print \"end\" }"],
            "5\nend\n",
        ),
        ("a\nb\n", &["{print; exit} END{print \"e\"}"], "a\ne\n"),
        ("", &["BEGIN{print length()}"], "0\n"),
        (
            "",
            &["BEGIN{print toupper(\"abc\") tolower(\"DEF\"), int(-3.9), int(\"4x\")}"],
            "ABCdef -3 4\n",
        ),
        (
            "",
            &["BEGIN{CONVFMT=\"%.2g\"; a=3.14159; b=a \"\"; print b; OFMT=\"%.3f\"; print a}"],
            "3.1\n3.142\n",
        ),
        (
            "",
            &[
                "BEGIN{s=\"a.b.c\"; gsub(/\\./,\"\\\\&\",s); print s; t=\"abc\"; sub(/b/,\"[&]\",t); print t}",
            ],
            "a&b&c\na[b]c\n",
        ),
    ] {
        let (out, err, st) = awk_in(input, args);
        assert_eq!((out.as_str(), err.as_str(), st), (want, "", 0), "{args:?}");
    }
}

#[test]
fn files_and_operands() {
    let w = World::new(
        texts()
            .file("/s/a.txt", b"k1 v1\nk2 v2\n")
            .file("/s/b.txt", b"k2\nk1\nk3\n"),
    );
    let (out, _, st) = awk(
        &w,
        &[
            "NR==FNR{m[$1]=$2; next} $1 in m {print $1, m[$1]}",
            "a.txt",
            "b.txt",
        ],
    );
    assert_eq!((out.as_str(), st), ("k2 v2\nk1 v1\n", 0));
    let (out, _, _) = awk(&w, &["{print x, $1}", "x=1", "a.txt", "x=2", "b.txt"]);
    assert_eq!(out, "1 k1\n1 k2\n2 k2\n2 k1\n2 k3\n");
    let (out, _, _) = awk(&w, &["FNR==1{print FILENAME}", "a.txt", "b.txt"]);
    assert_eq!(out, "a.txt\nb.txt\n");
    let (out, _, _) = awk(
        &w,
        &["BEGIN{while ((getline l < \"a.txt\") > 0) n++; print n, (getline x < \"nope\")}"],
    );
    assert_eq!(out, "2 -1\n");
}

#[test]
fn errors_as_gawk() {
    let (_, err, st) = awk_in("", &["BEGIN { x = }"]);
    assert_eq!(
        (err.as_str(), st),
        (
            "awk: cmd. line:1: BEGIN { x = }\nawk: cmd. line:1:             ^ syntax error\n",
            1
        )
    );
    let (_, err, st) = awk_in("", &["BEGIN { print 1"]);
    assert_eq!(
        (err.as_str(), st),
        (
            "awk: cmd. line:1: BEGIN { print 1\nawk: cmd. line:1:                ^ unexpected newline or end of string\n",
            1
        )
    );
    let (_, err, st) = awk_in("0\n", &["{print 1/$1}"]);
    assert_eq!(
        (err.as_str(), st),
        (
            "awk: cmd. line:1: (FILENAME=- FNR=1) fatal: division by zero attempted\n",
            2
        )
    );
    let (_, err, st) = awk_in("", &["1", "nofile"]);
    assert_eq!(
        (err.as_str(), st),
        (
            "awk: fatal: cannot open file `nofile' for reading: No such file or directory\n",
            2
        )
    );
    let (_, err, st) = awk_in("", &["BEGIN{printf \"%s %s\", \"a\"}"]);
    assert_eq!(
        (err.as_str(), st),
        (
            "awk: cmd. line:1: fatal: not enough arguments to satisfy format string\n\t`%s %s'\n\t    ^ ran out for this one\n",
            2
        )
    );
}

#[test]
fn updating_an_element_holds_no_more_memory() {
    // A 100 KB key incremented 400 times holds 100 KB, not 40 MB: no "out of memory" at the
    // cap (4 MiB in the unit tests; counted once per new element, given back on delete).
    let program = "BEGIN { k = sprintf(\"%100000s\", \"\"); \
                   for (i = 0; i < 400; i++) c[k]++; \
                   for (i = 0; i < 400; i++) { d[k] = i; delete d[k] } \
                   print c[k], length(d) }";
    assert_eq!(awk_in("", &[program]), ("400 0\n".into(), String::new(), 0));
}
