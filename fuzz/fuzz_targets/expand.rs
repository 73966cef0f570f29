//! Any bytes parsed, then every word of the whole syntax tree expanded against a small real
//! tree seen through the `Sandbox`, as the interpreter would: the words, assignment values and
//! redirection targets of simple commands; `for` word lists, `case` words and patterns, the
//! operands of `[[ ]]` (patterns and regular expressions included), the text of `(( ))` and
//! `for ((;;))` (evaluated by the arithmetic evaluator), in every compound command, function
//! body and command substitution, however deeply nested. Must never panic.
//!
//! `$(...)` expands to a fixed text (`sub out*` and two newlines, to be split and globbed);
//! the script inside it is walked as any other. `$((...))` is evaluated for real, on the
//! input's variables.
#![no_main]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use trumansh::expand::arith::{self, ArithEnv, Subscript};
use trumansh::expand::{
    ExpandCtx, ExpandError, Host, expand_pattern, expand_word, expand_word_nosplit, expand_words,
};
use trumansh::sandbox::{Sandbox, SandboxConfig};
use trumansh::shell::ast::{
    AssignValue, Assignment, Command, Compound, CondExpr, ParamOp, Pipeline, RedirKind, Redirect,
    Script, Word, WordPart,
};
use trumansh::shell::parse_at_eof;
use trumansh_commands::Vars;

const MOUNT: &str = "/home/user";

/// How deep the walk descends (the parser bounds nesting; this only keeps the harness itself
/// from overflowing on a pathological tree).
const MAX_DEPTH: usize = 256;

struct Fixture {
    _dir: tempfile::TempDir,
    sandbox: Sandbox,
    vars: Vars,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let r = dir.path();
        let setup = || -> std::io::Result<()> {
            fs::create_dir_all(r.join("dir/sub"))?;
            fs::create_dir_all(r.join("other"))?;
            for f in [
                "a.txt",
                "b.txt",
                ".hidden",
                "sp ace",
                "[x]",
                "-n",
                "dir/x.txt",
                "dir/sub/y",
            ] {
                fs::write(r.join(f), b"x\n")?;
            }
            symlink("dir", r.join("linkdir"))?;
            symlink(".", r.join("rootlink"))?;
            symlink("loop", r.join("loop"))?;
            symlink("/etc", r.join("out"))?;
            Ok(())
        };
        setup().unwrap_or_else(|e| panic!("fixture: {e}"));
        let mut cfg = SandboxConfig::new(r);
        cfg.mount_point = Some(MOUNT.into());
        let sandbox = Sandbox::open(&cfg).unwrap_or_else(|e| panic!("sandbox: {e}"));
        let mut vars = Vars::default();
        for (k, v) in [
            ("HOME", MOUNT),
            ("PWD", MOUNT),
            ("IFS", " \t\n"),
            ("E", ""),
            ("S", "a  b\tc"),
            ("G", "*.txt"),
            ("P", "x:y::z:"),
            ("X", "dir/*"),
            ("N", "42"),
            ("R", "N+1"),
            ("Z", "0"),
        ] {
            vars.set(k, v.to_string(), true);
        }
        Fixture {
            _dir: dir,
            sandbox,
            vars,
        }
    })
}

/// The shell expansion sees: the input's variables, three positional parameters, a fixed
/// command substitution, real arithmetic.
struct FuzzHost {
    vars: Vars,
    positional: Vec<String>,
    last_status: i32,
}

impl Host for FuzzHost {
    fn param(&self, name: &str) -> Option<String> {
        match name {
            "?" => Some(self.last_status.to_string()),
            "$" => Some("4242".into()),
            "#" => Some(self.positional.len().to_string()),
            "0" => Some("bash".into()),
            "-" => Some("hB".into()),
            "@" | "*" | "!" => None,
            n if n.bytes().all(|b| b.is_ascii_digit()) => n
                .parse::<usize>()
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| self.positional.get(i).cloned()),
            n => self.vars.get(n).map(str::to_string),
        }
    }
    fn positional(&self) -> Vec<String> {
        self.positional.clone()
    }
    fn assign(&mut self, name: &str, value: String) -> Result<(), String> {
        self.vars.set(name, value, false);
        Ok(())
    }
    fn command_subst(&mut self, _script: &Script) -> Result<Vec<u8>, ExpandError> {
        Ok(b"sub out*\n\n".to_vec())
    }
    fn arith(&mut self, text: &str) -> Result<i64, ExpandError> {
        arith::eval(text, &mut ArithVars(&mut self.vars)).map_err(|e| ExpandError::plain(e.message))
    }
}

/// Arithmetic's view of the variables (scalars; element 0 of an "array" is the scalar).
struct ArithVars<'a>(&'a mut Vars);

impl ArithEnv for ArithVars<'_> {
    fn get(&mut self, name: &str, sub: Subscript<'_>) -> Option<String> {
        match sub {
            Subscript::None | Subscript::Index(0) => self.0.get(name).map(str::to_string),
            Subscript::Index(_) | Subscript::Key(_) => None,
        }
    }
    fn set(&mut self, name: &str, _sub: Subscript<'_>, value: i64) -> Result<(), String> {
        self.0.set(name, value.to_string(), false);
        Ok(())
    }
    fn is_assoc(&self, name: &str) -> bool {
        name == "H"
    }
}

struct Walker<'f> {
    host: FuzzHost,
    sandbox: &'f Sandbox,
}

impl Walker<'_> {
    fn ctx(&mut self) -> ExpandCtx<'_> {
        ExpandCtx {
            host: &mut self.host,
            cwd: Path::new(MOUNT),
            fs: self.sandbox,
            max_brace: 10_000,
            max_glob: 10_000,
            max_words: 100_000,
            max_bytes: 16 << 20,
            noglob: false,
            nullglob: false,
            failglob: false,
            dotglob: false,
            globstar: false,
            extglob: true,
            globskipdots: true,
        }
    }

    fn words(&mut self, words: &[Word], depth: usize) {
        for w in words {
            self.inner(w, depth);
        }
        let _ = expand_words(words, &mut self.ctx());
    }

    fn nosplit(&mut self, word: &Word, depth: usize) -> Vec<u8> {
        self.inner(word, depth);
        expand_word_nosplit(word, &mut self.ctx()).unwrap_or_default()
    }

    /// Arithmetic text: expanded, then evaluated.
    fn arith(&mut self, word: &Word, depth: usize) {
        let text = self.nosplit(word, depth);
        let _ = self.host.arith(&String::from_utf8_lossy(&text));
    }

    fn pattern(&mut self, word: &Word, subject: &[u8], depth: usize) {
        self.inner(word, depth);
        if let Ok(p) = expand_pattern(word, &mut self.ctx()) {
            let _ = p.matches(subject, false, false);
            let _ = p.matches(subject, true, true);
            let _ = p.text();
            let _ = p.regex_source();
        }
    }

    /// The scripts and words nested in a word's parts (`$(...)`, `${X:-word}`, `$((...))`).
    fn inner(&mut self, word: &Word, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for part in &word.parts {
            self.part(part, depth + 1);
        }
    }

    fn part(&mut self, part: &WordPart, depth: usize) {
        match part {
            WordPart::Literal(_) | WordPart::Quoted(_) => {}
            WordPart::DoubleQuoted(parts) => {
                for p in parts {
                    self.part(p, depth + 1);
                }
            }
            WordPart::Param(p) => {
                if let Some(index) = &p.index {
                    self.inner(index, depth);
                }
                if let Some((op, word)) = &p.op {
                    self.inner(word, depth);
                    match op {
                        ParamOp::Replace { rep: Some(rep), .. } => self.inner(rep, depth),
                        ParamOp::Substring { length: Some(len) } => self.inner(len, depth),
                        _ => {}
                    }
                }
            }
            WordPart::CommandSubst(script) | WordPart::ProcessSubst { script, .. } => {
                self.script(script, depth);
            }
            WordPart::Arith(word) => self.inner(word, depth),
        }
    }

    fn script(&mut self, script: &Script, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for item in &script.items {
            self.pipeline(&item.first, depth + 1);
            for (_, p) in &item.rest {
                self.pipeline(p, depth + 1);
            }
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline, depth: usize) {
        for cmd in &pipeline.commands {
            match cmd {
                Command::Simple(simple) => {
                    for a in &simple.assignments {
                        self.assignment(a, depth);
                    }
                    for (_, a) in &simple.decl_args {
                        self.assignment(a, depth);
                    }
                    self.words(&simple.words, depth);
                    self.redirects(&simple.redirects, depth);
                }
                Command::Compound(c, redirects) => {
                    self.compound(c, depth + 1);
                    self.redirects(redirects, depth);
                }
                Command::Function(def) => {
                    self.compound(&def.body, depth + 1);
                    self.redirects(&def.redirects, depth);
                }
            }
        }
    }

    fn assignment(&mut self, a: &Assignment, depth: usize) {
        if let Some(index) = &a.index {
            self.arith(index, depth);
        }
        match &a.value {
            AssignValue::Scalar(w) => {
                let value = self.nosplit(w, depth);
                self.host
                    .vars
                    .set(&a.name, String::from_utf8_lossy(&value).into_owned(), false);
            }
            AssignValue::Array(words) => self.words(words, depth),
        }
    }

    fn redirects(&mut self, redirects: &[Redirect], depth: usize) {
        for r in redirects {
            match &r.kind {
                RedirKind::Out(w)
                | RedirKind::Clobber(w)
                | RedirKind::Append(w)
                | RedirKind::In(w)
                | RedirKind::OutErr(w)
                | RedirKind::AppendOutErr(w)
                | RedirKind::ReadWrite(w) => {
                    self.inner(w, depth);
                    let _ = expand_word(w, &mut self.ctx());
                }
                RedirKind::HereDoc { body, .. } | RedirKind::HereString(body) => {
                    self.nosplit(body, depth);
                }
                RedirKind::DupOut(_) | RedirKind::DupIn(_) | RedirKind::Close => {}
            }
        }
    }

    fn compound(&mut self, c: &Compound, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match c {
            Compound::Brace(s) | Compound::Subshell(s) => self.script(s, depth),
            Compound::If {
                branches,
                otherwise,
            } => {
                for (cond, body) in branches {
                    self.script(cond, depth);
                    self.script(body, depth);
                }
                if let Some(s) = otherwise {
                    self.script(s, depth);
                }
            }
            Compound::For { words, body, .. } => {
                if let Some(words) = words {
                    self.words(words, depth);
                }
                self.script(body, depth);
            }
            Compound::ArithFor {
                init,
                cond,
                step,
                body,
                ..
            } => {
                self.arith(init, depth);
                self.arith(cond, depth);
                self.script(body, depth);
                self.arith(step, depth);
            }
            Compound::While { cond, body, .. } => {
                self.script(cond, depth);
                self.script(body, depth);
            }
            Compound::Case { word, arms, .. } => {
                let subject = self.nosplit(word, depth);
                for arm in arms {
                    for p in &arm.patterns {
                        self.pattern(p, &subject, depth);
                    }
                    self.script(&arm.body, depth);
                }
            }
            Compound::Arith { expr, .. } => self.arith(expr, depth),
            Compound::Cond { expr, .. } => self.cond(expr, depth),
        }
    }

    fn cond(&mut self, e: &CondExpr, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match e {
            CondExpr::Word(w) | CondExpr::Unary(_, w) => {
                self.nosplit(w, depth);
            }
            CondExpr::Binary(l, op, r) => {
                let left = self.nosplit(l, depth);
                match op.as_str() {
                    "==" | "=" | "!=" | "=~" => self.pattern(r, &left, depth),
                    "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => {
                        self.arith(l, depth);
                        self.arith(r, depth);
                    }
                    _ => {
                        self.nosplit(r, depth);
                    }
                }
            }
            CondExpr::Not(e) | CondExpr::Group(e) => self.cond(e, depth + 1),
            CondExpr::And(a, b) | CondExpr::Or(a, b) => {
                self.cond(a, depth + 1);
                self.cond(b, depth + 1);
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let Ok(parsed) = parse_at_eof(data, 1) else {
        return;
    };
    let f = fixture();
    let mut walker = Walker {
        host: FuzzHost {
            vars: f.vars.clone(),
            positional: vec!["a".into(), "b c".into(), "*".into()],
            last_status: 1,
        },
        sandbox: &f.sandbox,
    };
    walker.script(&parsed.script, 0);
});
