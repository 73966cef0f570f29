//! The walk and the evaluation: visiting the tree in GNU find's order (depth-first,
//! `-depth`, `-maxdepth`/`-mindepth`, `-H`/`-L`/`-P`) and evaluating the expression on each
//! entry.

#[allow(clippy::wildcard_imports)]
use super::*;
use crate::support::walk::{Follow as WalkFollow, Node, Refused, Visit, Walk};

/// One visited object.
pub(super) struct Entry<'e> {
    pub(super) path: &'e Path,
    pub(super) display: &'e [u8],
    /// The name `-name` tests (the base name, trailing slashes dropped).
    pub(super) name: &'e [u8],
    pub(super) kind: FileKind,
    pub(super) depth: usize,
    /// The length of the start point's display name (for `%P`).
    pub(super) start_len: usize,
    /// Whether links are followed for this entry's metadata.
    pub(super) follow: bool,
    pub(super) meta: Option<Result<Meta, FsError>>,
}

pub(super) struct Find<'a> {
    pub(super) ctx: &'a Ctx<'a>,
    pub(super) expr: Expr,
    pub(super) global: Global,
    pub(super) follow: Follow,
    pub(super) out: Vec<u8>,
    pub(super) outcome: Outcome,
    pub(super) status: i32,
    pub(super) quit: bool,
    /// Set by `-prune` for the entry being evaluated.
    pub(super) prune: bool,
    /// While a directory is evaluated after its content: everything in it was deleted.
    pub(super) children_gone: bool,
    /// `-delete` asked to trash the entry being evaluated.
    pub(super) trashed: bool,
    /// The `-exec`-like actions ([`Expr::Exec`] indexes them).
    pub(super) execs: Vec<ExecSpec>,
    /// A command line said the line is over: run nothing more.
    pub(super) stopped: bool,
}

/// GNU's command buffer for `-exec ... +` (`bc_use_sensible_arg_max`).
const BATCH_MAX: usize = 128 * 1024;

/// The name `-execdir` gives a command: `./` and the last component (its trailing slashes
/// kept, as GNU's `./docs/` for `docs/`).
fn dir_name(display: &[u8]) -> Vec<u8> {
    let mut end = display.len();
    while end > 1 && display.get(end - 1) == Some(&b'/') {
        end -= 1;
    }
    let trimmed = display.get(..end).unwrap_or(display);
    let start = match memchr::memrchr(b'/', trimmed) {
        Some(i) if trimmed.len() > 1 => i + 1,
        _ => 0,
    };
    let mut out = b"./".to_vec();
    out.extend_from_slice(display.get(start..).unwrap_or_default());
    out
}

/// The directory `-execdir` runs in: the path's `dirname` (`.` for a bare name, and for
/// `.` itself).
fn dir_of(display: &[u8]) -> Vec<u8> {
    let mut end = display.len();
    while end > 1 && display.get(end - 1) == Some(&b'/') {
        end -= 1;
    }
    let trimmed = display.get(..end).unwrap_or(display);
    match memchr::memrchr(b'/', trimmed) {
        None => b".".to_vec(),
        Some(0) => b"/".to_vec(),
        Some(i) => trimmed.get(..i).unwrap_or_default().to_vec(),
    }
}

/// Each `{}` in `word` replaced by `name`.
fn replace_braces(word: &[u8], name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(word.len());
    let mut rest = word;
    while let Some(k) = memchr::memmem::find(rest, b"{}") {
        out.extend_from_slice(rest.get(..k).unwrap_or_default());
        out.extend_from_slice(name);
        rest = rest.get(k + 2..).unwrap_or_default();
    }
    out.extend_from_slice(rest);
    out
}

pub(super) fn basename(display: &[u8]) -> &[u8] {
    let mut end = display.len();
    while end > 1 && display.get(end - 1) == Some(&b'/') {
        end -= 1;
    }
    let trimmed = display.get(..end).unwrap_or(display);
    match memchr::memrchr(b'/', trimmed) {
        Some(i) if trimmed.len() > 1 => trimmed.get(i + 1..).unwrap_or(trimmed),
        _ => trimmed,
    }
}

pub(super) fn secs(t: SystemTime) -> i128 {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => i128::from(d.as_secs()),
        Err(e) => -i128::from(e.duration().as_secs()),
    }
}

impl Find<'_> {
    pub(super) fn flush(&mut self) {
        if !self.out.is_empty() {
            self.outcome.out(&self.out);
            self.out.clear();
        }
    }

    pub(super) fn error(&mut self, msg: &str) {
        self.flush();
        self.outcome.err(format!("{}: {msg}\n", self.ctx.name));
        self.status = 1;
    }

    pub(super) fn meta(&self, e: &mut Entry) -> Option<Meta> {
        if e.meta.is_none() {
            let m = match self.ctx.fs.stat(e.path, e.follow) {
                Err(_) if e.follow => self.ctx.fs.stat(e.path, false),
                m => m,
            };
            e.meta = Some(m);
        }
        e.meta.as_ref().and_then(|m| m.as_ref().ok()).cloned()
    }

    pub(super) fn eval(&mut self, x: &Expr, e: &mut Entry) -> bool {
        match x {
            Expr::And(a, b) => self.eval(a, e) && !self.quit && self.eval(b, e),
            Expr::Or(a, b) => self.eval(a, e) || (!self.quit && self.eval(b, e)),
            Expr::Comma(a, b) => {
                self.eval(a, e);
                !self.quit && self.eval(b, e)
            }
            Expr::Not(a) => !self.eval(a, e),
            Expr::True => true,
            Expr::False => false,
            Expr::Name { pat, fold } => fnmatch(pat, e.name, *fold),
            Expr::Path { pat, fold } => fnmatch(pat, e.display, *fold),
            Expr::Lname { pat, fold } => {
                e.kind == FileKind::Symlink
                    && self
                        .ctx
                        .fs
                        .read_link(e.path)
                        .is_ok_and(|t| fnmatch(pat, t.as_os_str().as_bytes(), *fold))
            }
            // `D` (a door, Solaris) never matches.
            Expr::Type(kinds) => kinds.contains(&type_letter(e.kind)),
            Expr::Size { cmp, n, unit } => self.meta(e).is_some_and(|m| {
                let size = m.len.div_ceil(*unit);
                cmp.test(i128::from(size), i128::from(*n))
            }),
            Expr::Empty => match e.kind {
                FileKind::File => self.meta(e).is_some_and(|m| m.len == 0),
                FileKind::Dir => self.ctx.fs.read_dir(e.path).is_ok_and(|v| v.is_empty()),
                _ => false,
            },
            Expr::Newer(t) => self.meta(e).is_some_and(|m| m.mtime > *t),
            Expr::Time {
                field,
                cmp,
                n,
                unit,
            } => self.meta(e).is_some_and(|m| {
                let when = match field {
                    TimeField::Access => m.atime,
                    TimeField::Modify => m.mtime,
                    TimeField::Change => m.ctime,
                };
                let delta = secs(self.ctx.now) - secs(when);
                #[allow(clippy::cast_precision_loss)]
                let (d, u) = (delta as f64, *unit as f64);
                // Whole units ago, compared with N; `-N`: less than N units ago.
                let units = (d / u).floor();
                match cmp {
                    Cmp::Less => d < n * u,
                    Cmp::Equal => (units - n).abs() < f64::EPSILON,
                    Cmp::Greater => units > *n,
                }
            }),
            Expr::Links { cmp, n } => self
                .meta(e)
                .is_some_and(|m| cmp.test(i128::from(m.nlink), i128::from(*n))),
            Expr::Print => {
                self.out.extend_from_slice(e.display);
                self.out.push(b'\n');
                true
            }
            Expr::Print0 => {
                self.out.extend_from_slice(e.display);
                self.out.push(0);
                true
            }
            Expr::Printf(fmt) => {
                self.printf(fmt, e);
                true
            }
            Expr::Prune => {
                self.prune = true;
                true
            }
            Expr::Quit => {
                self.quit = true;
                true
            }
            Expr::Delete => self.delete(e),
            Expr::Exec(k) => self.exec(*k, e),
            Expr::Regex(re) => re.is_match(e.display),
            Expr::Perm { how, mode } => self.meta(e).is_some_and(|m| {
                let perm = m.perm & 0o7777;
                match how {
                    b'-' => perm & mode == *mode,
                    b'/' => *mode == 0 || perm & mode != 0,
                    _ => perm == *mode,
                }
            }),
        }
    }

    /// Runs one command line; its exit status, or `None` when no program by that name
    /// exists (said on stderr, as GNU's child says it) or the line is over.
    fn launch(&mut self, argv: &[Vec<u8>], cwd: Option<&Path>) -> Option<i32> {
        if self.stopped {
            return None;
        }
        self.flush();
        let argv: Vec<OsString> = argv
            .iter()
            .map(|a| OsStr::from_bytes(a).to_os_string())
            .collect();
        let r = self.ctx.run(
            &mut self.outcome,
            RunRequest {
                what: RunWhat::Argv(&argv),
                stdin: None,
                // As GNU's: the command reads what is left of find's stdin.
                inherit_stdin: true,
                capture: false,
                cwd,
                env: None,
            },
        );
        let name = argv.first().cloned().unwrap_or_default();
        match r {
            Some(r) if r.stop => {
                self.stopped = true;
                self.quit = true;
                None
            }
            Some(r) if !r.not_found => Some(r.status),
            _ => {
                self.outcome.err(format!(
                    "{}: {}: No such file or directory\n",
                    self.ctx.name,
                    quote_locale(&name)
                ));
                None
            }
        }
    }

    /// `-exec`, `-execdir`, `-ok`, `-okdir` on one entry.
    fn exec(&mut self, k: usize, e: &Entry) -> bool {
        let Some(spec) = self.execs.get(k) else {
            return false;
        };
        let (name, dir) = if spec.in_dir {
            let dir = normalize_lexical(&self.ctx.resolve(OsStr::from_bytes(&dir_of(e.display))));
            (dir_name(e.display), Some(dir))
        } else {
            (e.display.to_vec(), None)
        };
        if spec.batch {
            let base: usize = spec.words.iter().map(|w| w.len() + 1).sum();
            let len = name.len() + 1;
            let other_dir = spec.in_dir && spec.pending_dir.is_some() && spec.pending_dir != dir;
            if !spec.pending.is_empty()
                && (other_dir || base + spec.pending_chars + len > BATCH_MAX)
            {
                self.run_batch(k);
            }
            if let Some(spec) = self.execs.get_mut(k) {
                spec.pending.push(name);
                spec.pending_chars += len;
                spec.pending_dir = dir;
            }
            return true;
        }
        let argv: Vec<Vec<u8>> = spec
            .words
            .iter()
            .map(|w| replace_braces(w, &name))
            .collect();
        if spec.ask {
            let cmd = String::from_utf8_lossy(argv.first().map(Vec::as_slice).unwrap_or_default())
                .into_owned();
            let question = format!("< {cmd} ... {} > ? ", String::from_utf8_lossy(e.display));
            self.flush();
            if !crate::support::input::ask(&mut self.outcome, self.ctx.stdin, &question) {
                return false;
            }
        }
        self.launch(&argv, dir.as_deref()) == Some(0)
    }

    /// Runs the names waiting for a `+` action; a failure makes find's status 1.
    fn run_batch(&mut self, k: usize) {
        let Some(spec) = self.execs.get_mut(k) else {
            return;
        };
        if spec.pending.is_empty() {
            return;
        }
        let mut argv = spec.words.clone();
        argv.append(&mut spec.pending);
        spec.pending_chars = 0;
        let dir = spec.pending_dir.take();
        if self.launch(&argv, dir.as_deref()) != Some(0) {
            self.status = 1;
        }
    }

    /// At the end: every batch still waiting runs.
    pub(super) fn run_pending(&mut self) {
        for k in 0..self.execs.len() {
            self.run_batch(k);
        }
    }

    pub(super) fn delete(&mut self, e: &mut Entry) -> bool {
        let base = basename(e.display);
        if base == b"." || base == b".." {
            // GNU never removes `.` (rmdir would fail with EINVAL); it says nothing.
            return true;
        }
        let shown = quote_locale(OsStr::from_bytes(e.display));
        if e.kind == FileKind::Dir && !self.ctx.fs.read_dir(e.path).is_ok_and(|v| v.is_empty()) {
            // Children still there: those not selected, or not yet deleted by this run.
            if !self.children_gone {
                self.error(&format!("cannot delete {shown}: Directory not empty"));
                return false;
            }
        }
        self.flush();
        self.outcome.effect(Effect::new(
            Op::Trash {
                path: e.path.to_path_buf(),
            },
            format!("{}: cannot delete {shown}", self.ctx.name),
        ));
        self.trashed = true;
        true
    }

    /// Evaluates the expression for one entry; whether to descend (not pruned).
    pub(super) fn visit(&mut self, e: &mut Entry) -> bool {
        self.prune = false;
        self.trashed = false;
        if e.depth >= self.global.mindepth {
            let expr = std::mem::replace(&mut self.expr, Expr::True);
            self.eval(&expr, e);
            self.expr = expr;
        }
        !self.prune || self.global.depth_first
    }

    pub(super) fn start(&mut self, op: &OsStr) {
        let ctx = self.ctx;
        let path = ctx.resolve(op);
        let follow = self.follow != Follow::Never;
        let meta = match ctx.fs.stat(&path, follow) {
            Err(FsError::NotFound) if follow => ctx.fs.stat(&path, false),
            m => m,
        };
        let meta = match meta {
            Ok(m) => m,
            Err(e) => {
                self.error(&format!("{}: {}", quote_locale(op), e.strerror()));
                return;
            }
        };
        let display = op.as_bytes().to_vec();
        let name = basename(&display).to_vec();
        self.walk(&path, &display, &name, meta.kind, Some(meta));
    }

    /// The evaluation of a directory after its content (`-depth`), then the parent's
    /// record of whether everything in it was deleted.
    fn leave(&mut self, walk: &mut Walk<bool>, node: &Node, all_deleted: bool, start_len: usize) {
        let display = node.display.as_bytes();
        let mut e = Entry {
            path: &node.path,
            display,
            name: basename(display),
            kind: FileKind::Dir,
            depth: node.depth,
            start_len,
            follow: node.depth == 0 && self.follow != Follow::Never
                || self.follow == Follow::Always,
            meta: None,
        };
        self.children_gone = all_deleted;
        self.visit(&mut e);
        if let Some(parent) = walk.data_mut() {
            *parent &= self.trashed;
        }
    }

    /// Visits one start point and, unless pruned, what is below it, on the shared walk
    /// (`-L`: links followed, loops refused). Each open directory carries whether
    /// everything in it was deleted, for `-delete` of the directory itself. The walk's cap
    /// is GNU's nesting limit ([`DEPTH_CAP`], an error when reached); the policy's
    /// `walk_depth` acts as a `-maxdepth` (entries below it are silently not visited).
    pub(super) fn walk(
        &mut self,
        root: &Path,
        display: &[u8],
        name: &[u8],
        kind: FileKind,
        meta: Option<Meta>,
    ) {
        let ctx = self.ctx;
        let follow_all = self.follow == Follow::Always;
        let maxdepth = self
            .global
            .maxdepth
            .unwrap_or(usize::MAX)
            .min(self.ctx.walk_depth);
        let depth_first = self.global.depth_first;
        let start_len = display.len();
        let mut root_entry = Entry {
            path: root,
            display,
            name,
            kind,
            depth: 0,
            start_len,
            follow: self.follow != Follow::Never,
            meta: meta.map(Ok),
        };
        let descend = if depth_first {
            true
        } else {
            self.visit(&mut root_entry)
        };
        if !(kind == FileKind::Dir && descend && maxdepth > 0 && !self.quit) {
            if depth_first {
                self.children_gone = false;
                self.visit(&mut root_entry);
                return;
            }
            self.flush();
            return;
        }
        let links = if follow_all {
            WalkFollow::Always
        } else {
            WalkFollow::Never
        };
        let mut walk: Walk<bool> = Walk::carrying(ctx.fs, links, DEPTH_CAP);
        let top = Walk::root(root.to_path_buf(), OsStr::from_bytes(display));
        if let Err((node, why, all)) = walk.enter_with(top, true) {
            self.refused(&mut walk, &node, &why, all, start_len);
        }
        while !self.quit {
            let node = match walk.next() {
                None => break,
                Some(Visit::Leave(node, all)) => {
                    if depth_first {
                        self.leave(&mut walk, &node, all, start_len);
                    }
                    continue;
                }
                // A link `-L` cannot follow is an entry of its own kind.
                Some(Visit::Entry(node) | Visit::Broken(node, _)) => node,
                // Listing mode only.
                Some(Visit::Listed(_) | Visit::Refused(..)) => continue,
            };
            let display = node.display.as_bytes();
            let mut e = Entry {
                path: &node.path,
                display,
                name: basename(display),
                kind: node.kind,
                depth: node.depth,
                start_len,
                follow: follow_all,
                meta: None,
            };
            if node.kind != FileKind::Dir || node.depth >= maxdepth {
                self.children_gone = false;
                self.visit(&mut e);
                let gone = self.trashed;
                if let Some(parent) = walk.data_mut() {
                    *parent &= gone;
                }
                continue;
            }
            if let Some(ancestor) = walk.looped(&node) {
                let msg = format!(
                    "File system loop detected; {} is part of the same file system loop as {}.",
                    quote_locale(&node.display),
                    quote_locale(&ancestor.display)
                );
                self.error(&msg);
                if let Some(parent) = walk.data_mut() {
                    *parent = false;
                }
                continue;
            }
            let descend = depth_first || self.visit(&mut e);
            if !descend || self.quit {
                if let Some(parent) = walk.data_mut() {
                    *parent = false;
                }
                continue;
            }
            if let Err((node, why, all)) = walk.descend_with(node, true) {
                self.refused(&mut walk, &node, &why, all, start_len);
            }
        }
        self.flush();
    }

    /// A directory the walk did not open: too deep for GNU (not visited after), or
    /// unreadable (an error, then still visited after its content under `-depth`).
    fn refused(
        &mut self,
        walk: &mut Walk<bool>,
        node: &Node,
        why: &Refused,
        all_deleted: bool,
        start_len: usize,
    ) {
        let shown = quote_locale(&node.display);
        match why {
            Refused::TooDeep => self.error(&format!(
                "{shown}: directory nesting deeper than {DEPTH_CAP} levels; not descending"
            )),
            // Checked by `looped` before the entry was visited.
            Refused::Loop => {}
            Refused::Unreadable(e) => {
                self.error(&format!("{shown}: {}", e.strerror()));
                if self.global.depth_first {
                    self.leave(walk, node, all_deleted, start_len);
                }
            }
        }
    }
}

/// `-type`'s and `%y`'s letter for a kind: `ls`'s, with `f` for a regular file.
pub(super) fn type_letter(kind: FileKind) -> u8 {
    match kind {
        FileKind::File => b'f',
        k => k.letter() as u8,
    }
}
