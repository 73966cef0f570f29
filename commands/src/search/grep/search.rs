//! The search itself: one `Grep` walks the operands (and the tree with `-r`), reads each file
//! in chunks and prints matches, context, counts and names as GNU grep does.

#[allow(clippy::wildcard_imports)]
use super::*;
use crate::support::walk::{Follow, Refused, Visit, Walk};

/// Whether a glob matches a name (recursion: the base name) or, for a command-line name,
/// any suffix of it that starts after a `/` (GNU's `EXCLUDE_ANCHORED` off).
pub(super) fn glob_hits(globs: &[Vec<u8>], name: &[u8], command_line: bool) -> bool {
    globs.iter().any(|g| {
        if fnmatch(g, name, false) {
            return true;
        }
        command_line
            && memchr_iter(b'/', name).any(|i| {
                name.get(i + 1..).is_some_and(|rest| {
                    rest.first().is_some_and(|&c| c != b'/') && fnmatch(g, rest, false)
                })
            })
    })
}

/// Per-file search state. Offsets are absolute positions in the file.
pub(super) struct FileRun {
    /// File offset of `buf[0]`.
    pub(super) base: u64,
    /// Lines are counted up to here; `lineno` is the number of the line there.
    pub(super) count_pos: u64,
    pub(super) lineno: u64,
    /// Offset just past the last line printed (or shown as context).
    pub(super) printed_until: u64,
    pub(super) after_left: usize,
    /// Number of the last line output, for the `--` separator.
    pub(super) last_out: Option<u64>,
    pub(super) selected: u64,
    pub(super) binary: bool,
    /// Stop reading this file.
    pub(super) done: bool,
    /// The maximum was reached: only trailing context remains.
    pub(super) stopping: bool,
}

pub(super) struct Grep<'a> {
    pub(super) ctx: &'a Ctx<'a>,
    pub(super) o: Opts,
    pub(super) re: Option<Matcher>,
    /// `-T`: the width of line numbers and offsets in the current file.
    pub(super) num_width: usize,
    /// For `-w`: the bare pattern, a fast first pass whose lines `re` then confirms (the
    /// word assertions keep the `regex` crate off its literal fast paths).
    pub(super) pre: Option<Matcher>,
    pub(super) with_name: bool,
    pub(super) out: Vec<u8>,
    pub(super) outcome: Outcome,
    pub(super) error: bool,
    pub(super) any_selected: bool,
    /// Something was printed before (for `--` between files).
    pub(super) any_output: bool,
    /// `-q` matched: stop everything.
    pub(super) quit: bool,
    /// The output is no longer read (a closed pipe): stop everything.
    pub(super) done_reading: bool,
    pub(super) buf: Vec<u8>,
}

impl Grep<'_> {
    pub(super) fn flush(&mut self) {
        if !self.out.is_empty() {
            self.outcome.out(&self.out);
            self.out.clear();
        }
        // Large output flows on while grep runs; a closed pipe stops it, as SIGPIPE would.
        if !self.ctx.flush(&mut self.outcome) {
            self.quit = true;
            self.done_reading = true;
        }
    }

    pub(super) fn message(&mut self, text: &str) {
        self.flush();
        self.outcome.err(text);
    }

    /// A file error: status 2, message unless `-s`.
    pub(super) fn file_error(&mut self, name: &[u8], e: &FsError) {
        self.error = true;
        if !self.o.no_messages {
            self.message(&format!(
                "{}: {}: {}\n",
                self.ctx.name,
                String::from_utf8_lossy(name),
                e.strerror()
            ));
        }
    }

    pub(super) fn excluded(&self, name: &[u8], command_line: bool) -> bool {
        let base = if command_line {
            name
        } else {
            name.rsplit(|&c| c == b'/').next().unwrap_or(name)
        };
        if glob_hits(&self.o.exclude, base, command_line) {
            return true;
        }
        !self.o.include.is_empty() && !glob_hits(&self.o.include, base, command_line)
    }

    pub(super) fn dir_excluded(&self, name: &[u8], command_line: bool) -> bool {
        let base = if command_line {
            name
        } else {
            name.rsplit(|&c| c == b'/').next().unwrap_or(name)
        };
        glob_hits(&self.o.exclude_dir, base, command_line)
    }

    /// One operand as given on the command line.
    pub(super) fn operand(&mut self, op: &OsStr) {
        let name = op.as_bytes();
        if self.o.initial_tab {
            self.set_width(None);
        }
        if op == "-" {
            let label = self.o.label.clone();
            let mut r = self.ctx.stdin;
            self.search(&mut r, &label);
            return;
        }
        // `/dev/stdin` is read as a file named so (even under `-r`).
        if crate::support::input::names_stdin(self.ctx, op) {
            let mut r = self.ctx.stdin;
            self.search(&mut r, name);
            return;
        }
        let path = self.ctx.resolve(op);
        if self.o.recursive || self.o.skip_dirs || self.o.skip_devices {
            match self.ctx.fs.stat(&path, true) {
                Err(e) => return self.file_error(name, &e),
                Ok(m) if m.is_dir() && (self.o.recursive || self.o.skip_dirs) => {
                    if self.o.skip_dirs || self.dir_excluded(name, true) {
                        return;
                    }
                    return self.walk(path, op);
                }
                // `-D skip`: devices and fifos, also named on the command line. GNU opens
                // the file before it looks (non-blocking): a socket fails to open.
                Ok(m)
                    if m.kind.is_special() && m.kind != FileKind::Socket && self.o.skip_devices =>
                {
                    return;
                }
                Ok(_) => {}
            }
        }
        if self.excluded(name, true) {
            return;
        }
        self.search_path(&path, name);
    }

    pub(super) fn search_path(&mut self, path: &std::path::Path, name: &[u8]) {
        let ctx = self.ctx;
        if self.o.initial_tab {
            let size = ctx
                .fs
                .stat(path, true)
                .ok()
                .filter(crate::Meta::is_file)
                .map(|m| m.len);
            self.set_width(size);
        }
        match ctx.fs.open(path) {
            Ok(mut r) => self.search(&mut r, name),
            Err(e) => self.file_error(name, &e),
        }
    }

    /// `-r`: the shared walk in directory order; links followed only with `-R`.
    pub(super) fn walk(&mut self, root: PathBuf, display: &OsStr) {
        let ctx = self.ctx;
        let follow = if self.o.deref {
            Follow::Always
        } else {
            Follow::Never
        };
        let mut walk = Walk::new(ctx.fs, follow, ctx.walk_depth);
        if let Err((_, Refused::Unreadable(e))) = walk.enter(Walk::root(root, display)) {
            return self.file_error(display.as_bytes(), &e);
        }
        while let Some(visit) = walk.next() {
            if self.quit {
                return;
            }
            if ctx.expired() {
                self.quit = true;
                return;
            }
            let node = match visit {
                Visit::Entry(node) => node,
                Visit::Broken(node, e) => {
                    self.file_error(node.display.as_bytes(), &e);
                    continue;
                }
                // Listed and Refused: listing mode only.
                Visit::Leave(..) | Visit::Listed(_) | Visit::Refused(..) => continue,
            };
            match node.kind {
                FileKind::Dir => {
                    if self.dir_excluded(node.display.as_bytes(), false) {
                        continue;
                    }
                    let Err((node, why)) = walk.descend(node) else {
                        continue;
                    };
                    let shown = String::from_utf8_lossy(node.display.as_bytes()).into_owned();
                    match why {
                        Refused::Loop => {
                            self.message(&format!(
                                "{}: {shown}: warning: recursive directory loop\n",
                                self.ctx.name,
                            ));
                        }
                        Refused::TooDeep => {
                            self.message(&format!(
                                "{}: {shown}: directory nesting deeper than {} levels; not searched\n", self.ctx.name,
                                ctx.walk_depth
                            ));
                            self.error = true;
                        }
                        Refused::Unreadable(e) => self.file_error(node.display.as_bytes(), &e),
                    }
                }
                FileKind::File => {
                    if !self.excluded(node.display.as_bytes(), false) {
                        self.search_path(&node.path, node.display.as_bytes());
                    }
                }
                // Links under `-r`, devices, fifos and sockets: skipped, as GNU does when
                // recursing.
                FileKind::Symlink
                | FileKind::Fifo
                | FileKind::Socket
                | FileKind::CharDevice(_)
                | FileKind::BlockDevice(_) => {}
            }
        }
    }

    /// `-T`: GNU's width for the numbers of one file, the digits of its size (plus one with
    /// `-n`); a size it cannot know (a pipe) as the largest offset, 19 digits.
    pub(super) fn set_width(&mut self, size: Option<u64>) {
        self.num_width = match size {
            Some(n) => (n + u64::from(self.o.line_number)).to_string().len(),
            None => 19,
        };
    }

    pub(super) fn prefix(&mut self, name: &[u8], sep: u8, lineno: u64, offset: u64) {
        if self.with_name {
            self.out.extend_from_slice(name);
            self.out.push(if self.o.null { 0 } else { sep });
        }
        let w = if self.o.initial_tab {
            self.num_width
        } else {
            0
        };
        if self.o.line_number {
            self.out
                .extend_from_slice(format!("{lineno:>w$}").as_bytes());
            self.out.push(sep);
        }
        if self.o.byte_offset {
            self.out
                .extend_from_slice(format!("{offset:>w$}").as_bytes());
            self.out.push(sep);
        }
        if self.o.initial_tab && (self.with_name || self.o.line_number || self.o.byte_offset) {
            self.out.push(b'\t');
        }
    }

    /// The number of the line starting at absolute offset `at` (lines are counted forward).
    pub(super) fn line_at(&self, st: &mut FileRun, buf: &[u8], at: u64) -> u64 {
        if !self.o.need_lines() {
            return 0;
        }
        if at > st.count_pos {
            let from = usize::try_from(st.count_pos.saturating_sub(st.base)).unwrap_or(0);
            let to = usize::try_from(at - st.base).unwrap_or(0);
            let n = buf
                .get(from..to)
                .map_or(0, |s| memchr_iter(self.o.eol, s).count());
            st.lineno += n as u64;
            st.count_pos = at;
        }
        st.lineno
    }

    /// Prints the group separator before line `n` if it does not follow the last output.
    pub(super) fn separate(&mut self, st: &mut FileRun, n: u64) {
        if !self.o.context() {
            return;
        }
        let gap = match st.last_out {
            Some(l) => n > l + 1,
            None => self.any_output,
        };
        if gap && let Some(sep) = &self.o.separator {
            self.out.extend_from_slice(sep);
            self.out.push(b'\n');
        }
        st.last_out = Some(n);
        self.any_output = true;
    }

    /// Outputs the context line `[ls, le)` (buffer indices).
    pub(super) fn context_line(
        &mut self,
        st: &mut FileRun,
        buf: &[u8],
        name: &[u8],
        ls: usize,
        le: usize,
    ) {
        let at = st.base + ls as u64;
        let n = self.line_at(st, buf, at);
        self.separate(st, n);
        if !self.o.only_matching {
            self.prefix(name, b'-', n, st.base + ls as u64);
            self.out
                .extend_from_slice(buf.get(ls..le).unwrap_or_default());
            self.out.push(self.o.eol);
        }
        st.printed_until = st.base + le as u64 + 1;
    }

    /// Prints pending trailing context from `printed_until`, before buffer index `limit`.
    pub(super) fn flush_after(&mut self, st: &mut FileRun, buf: &[u8], name: &[u8], limit: usize) {
        while st.after_left > 0 {
            let Some(ls) = usize::try_from(st.printed_until.saturating_sub(st.base)).ok() else {
                return;
            };
            if ls >= limit {
                return;
            }
            let le = buf
                .get(ls..limit)
                .and_then(|s| memchr(self.o.eol, s))
                .map_or(limit, |i| ls + i);
            self.context_line(st, buf, name, ls, le);
            st.after_left -= 1;
        }
    }

    /// The next selected line at or after `pos` in `buf[..=end]` (`buf[end]` is a newline).
    pub(super) fn next_selected(
        &self,
        buf: &[u8],
        pos: usize,
        end: usize,
    ) -> Option<(usize, usize)> {
        let hay = buf.get(..end)?;
        let eol = self.o.eol;
        let line_end = |from: usize| {
            hay.get(from..)
                .and_then(|s| memchr(self.o.eol, s))
                .map_or(end, |i| from + i)
        };
        // The next matching line at or after `p`.
        let next_match = |mut p: usize| -> Option<(usize, usize)> {
            let re = self.re.as_ref()?;
            while p <= end {
                let (ms, me) = self.pre.as_ref().unwrap_or(re).find_at(hay, p)?;
                let ls = hay
                    .get(p..ms)
                    .and_then(|s| memrchr(eol, s))
                    .map_or(p, |i| p + i + 1);
                let le = line_end(ms);
                let line = hay.get(ls..le).unwrap_or_default();
                let confirmed = if self.pre.is_some() {
                    re.is_match(line)
                } else {
                    me <= le || re.is_match(line)
                };
                if confirmed {
                    return Some((ls, le));
                }
                p = le + 1;
            }
            None
        };
        if !self.o.invert {
            return next_match(pos);
        }
        let mut p = pos;
        while p <= end {
            match next_match(p) {
                Some((ls, le)) if ls == p => p = le + 1,
                _ => return Some((p, line_end(p))),
            }
        }
        None
    }

    /// Handles the lines `buf[start..=end]` (`buf[end]` is a newline).
    pub(super) fn region(
        &mut self,
        st: &mut FileRun,
        buf: &[u8],
        name: &[u8],
        start: usize,
        end: usize,
    ) {
        let mut pos = start;
        let mut lines = 0u32;
        while pos <= end && !st.done {
            lines = lines.wrapping_add(1);
            if lines.is_multiple_of(4096) && self.ctx.expired() {
                self.quit = true;
                st.done = true;
                return;
            }
            if st.stopping {
                self.flush_after(st, buf, name, end + 1);
                if st.after_left == 0 {
                    st.done = true;
                }
                return;
            }
            let Some((ls, le)) = self.next_selected(buf, pos, end) else {
                break;
            };
            self.selected(st, buf, name, ls, le);
            pos = le + 1;
        }
        if !st.done {
            self.flush_after(st, buf, name, end + 1);
        }
    }

    pub(super) fn selected(
        &mut self,
        st: &mut FileRun,
        buf: &[u8],
        name: &[u8],
        ls: usize,
        le: usize,
    ) {
        st.selected += 1;
        self.any_selected = true;
        let reached = st.selected >= self.o.max;
        match self.o.mode {
            Mode::Quiet => {
                self.quit = true;
                st.done = true;
                return;
            }
            Mode::FilesWith | Mode::FilesWithout => {
                st.done = true;
                return;
            }
            Mode::Count => {
                st.done = reached;
                return;
            }
            Mode::Lines => {}
        }
        if st.binary && self.o.binary == Binary::Binary {
            self.message(&format!(
                "{}: {}: binary file matches\n",
                self.ctx.name,
                String::from_utf8_lossy(name)
            ));
            st.done = true;
            return;
        }
        self.flush_after(st, buf, name, ls);
        if self.o.before > 0 {
            let floor = usize::try_from(st.printed_until.saturating_sub(st.base)).unwrap_or(0);
            let mut b = ls;
            for _ in 0..self.o.before {
                if b <= floor {
                    break;
                }
                b = buf
                    .get(floor..b - 1)
                    .and_then(|s| memrchr(self.o.eol, s))
                    .map_or(floor, |i| floor + i + 1);
            }
            while b < ls {
                let e = buf
                    .get(b..ls)
                    .and_then(|s| memchr(self.o.eol, s))
                    .map_or(ls, |i| b + i);
                self.context_line(st, buf, name, b, e);
                b = e + 1;
            }
        }
        let at = st.base + ls as u64;
        let n = self.line_at(st, buf, at);
        self.separate(st, n);
        if self.o.only_matching {
            if !self.o.invert {
                self.only_matches(st, buf, name, ls, le, n);
            }
        } else {
            self.prefix(name, b':', n, st.base + ls as u64);
            self.out
                .extend_from_slice(buf.get(ls..le).unwrap_or_default());
            self.out.push(self.o.eol);
        }
        st.printed_until = st.base + le as u64 + 1;
        st.after_left = self.o.after;
        if reached {
            st.stopping = true;
            st.done = self.o.after == 0;
        }
    }

    pub(super) fn only_matches(
        &mut self,
        st: &FileRun,
        buf: &[u8],
        name: &[u8],
        ls: usize,
        le: usize,
        n: u64,
    ) {
        let Some(re) = self.re.as_ref() else { return };
        let hay = buf.get(..le).unwrap_or_default();
        let mut p = ls;
        let mut found = Vec::new();
        while p <= le {
            let Some((ms, me)) = re.find_at(hay, p) else {
                break;
            };
            if ms < ls {
                break;
            }
            if ms == me {
                p = me + 1;
                continue;
            }
            found.push((ms, me));
            p = me;
        }
        for (s, e) in found {
            self.prefix(name, b':', n, st.base + s as u64);
            self.out
                .extend_from_slice(buf.get(s..e).unwrap_or_default());
            self.out.push(self.o.eol);
        }
    }

    /// Searches one stream and prints what the mode asks for.
    pub(super) fn search(&mut self, r: &mut dyn Read, name: &[u8]) {
        if self.quit {
            return;
        }
        // `mem` is storage that stays initialised from file to file (only its growth is
        // zeroed: a fresh 256 KiB of zeroes per small file was a third of `grep -r`'s time);
        // the data is `mem[..len]`.
        let mut mem = std::mem::take(&mut self.buf);
        let mut len = 0usize;
        let mut st = FileRun {
            base: 0,
            count_pos: 0,
            lineno: 1,
            printed_until: 0,
            after_left: 0,
            last_out: None,
            selected: 0,
            binary: false,
            done: false,
            stopping: false,
        };
        let mut start = 0usize;
        let mut eof = false;
        let mut read_failed = None;
        while !st.done {
            if self.ctx.expired() {
                // The line's deadline: stop here (the shell says why).
                self.quit = true;
                break;
            }
            if mem.len() < len + CHUNK {
                mem.resize(len + CHUNK, 0);
            }
            let n = loop {
                match r.read(mem.get_mut(len..len + CHUNK).unwrap_or_default()) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        read_failed = Some(FsError::from_io(&e));
                        break 0;
                    }
                }
            };
            if read_failed.is_some() {
                break;
            }
            let fresh = len;
            len += n;
            eof = n == 0;
            // With `-z` the NUL ends lines: it does not make the file binary.
            if !st.binary
                && self.o.eol != 0
                && mem.get(fresh..len).is_some_and(|s| memchr(0, s).is_some())
            {
                st.binary = true;
                if self.o.binary == Binary::WithoutMatch {
                    break;
                }
            }
            if eof
                && len > start
                && len.checked_sub(1).and_then(|i| mem.get(i)) != Some(&self.o.eol)
            {
                match mem.get_mut(len) {
                    Some(c) => *c = self.o.eol,
                    None => mem.push(self.o.eol),
                }
                len += 1;
            }
            let buf = mem.get(..len).unwrap_or_default();
            let Some(end) = buf
                .get(start..)
                .and_then(|s| memrchr(self.o.eol, s))
                .map(|i| start + i)
            else {
                if eof {
                    break;
                }
                continue;
            };
            self.region(&mut st, buf, name, start, end);
            start = end + 1;
            if self.out.len() >= crate::SPILL_AT {
                self.flush();
                if self.done_reading {
                    break;
                }
            }
            if eof {
                break;
            }
            // Keep the lines before-context may still need; drop the rest.
            let mut keep = start;
            let floor = usize::try_from(st.printed_until.saturating_sub(st.base)).unwrap_or(0);
            for _ in 0..self.o.before {
                if keep <= floor {
                    break;
                }
                keep = buf
                    .get(floor..keep - 1)
                    .and_then(|s| memrchr(self.o.eol, s))
                    .map_or(floor, |i| floor + i + 1);
            }
            let keep = keep.min(start);
            if keep > 0 {
                let at = st.base + keep as u64;
                self.line_at(&mut st, buf, at);
                mem.copy_within(keep..len, 0);
                len -= keep;
                st.base += keep as u64;
                start -= keep;
            }
        }
        // A file with one huge line leaves no huge buffer behind.
        if mem.len() > 4 * CHUNK {
            mem = Vec::new();
        }
        self.buf = mem;
        if let Some(e) = read_failed {
            self.file_error(name, &e);
            return;
        }
        if st.binary && self.o.binary == Binary::WithoutMatch {
            st.selected = 0;
        }
        match self.o.mode {
            Mode::Count => {
                if self.with_name {
                    self.out.extend_from_slice(name);
                    self.out.push(if self.o.null { 0 } else { b':' });
                }
                self.out
                    .extend_from_slice(format!("{}\n", st.selected).as_bytes());
            }
            Mode::FilesWith if st.selected > 0 => self.file_name_line(name),
            Mode::FilesWithout if st.selected == 0 => self.file_name_line(name),
            _ => {}
        }
        let _ = eof;
    }

    pub(super) fn file_name_line(&mut self, name: &[u8]) {
        self.out.extend_from_slice(name);
        self.out.push(if self.o.null { 0 } else { b'\n' });
    }
}
