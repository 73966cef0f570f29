//! Printing what was listed: the long format (`-l`: mode string, links, owner, size or
//! blocks, GNU's two time formats) and the columns of the default format, as GNU ls lays
//! them out.

#[allow(clippy::wildcard_imports)]
use super::*;
use crate::support::mode::perm_string;

/// `Mon DD HH:MM` for a time within the past six months, `Mon DD  YYYY` otherwise (GNU's
/// two `%b %e` formats in the C locale).
pub(super) fn format_time(t: SystemTime, o: &Opts) -> String {
    let six_months_ago = o
        .now
        .checked_sub(std::time::Duration::from_secs(SIX_MONTHS))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let recent = six_months_ago < t && t <= o.now;
    let secs = to_epoch(t).0.saturating_add(o.offset);
    let (year, month_no, day) = civil_from_days(secs.div_euclid(86_400));
    let month = usize::try_from(month_no - 1)
        .ok()
        .and_then(|i| MONTHS.get(i))
        .copied()
        .unwrap_or("???");
    if recent {
        let sod = secs.rem_euclid(86_400);
        format!("{month} {day:>2} {:02}:{:02}", sod / 3600, sod % 3600 / 60)
    } else {
        format!("{month} {day:>2} {year:>5}")
    }
}

/// GNU's `human_readable` with `-h`: powers of 1024, rounded up, one decimal below 10.
pub(super) fn human(n: u64) -> String {
    const UNITS: [char; 8] = ['K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
    if n < 1024 {
        return n.to_string();
    }
    let n = u128::from(n);
    let mut e = 0usize;
    let mut scale: u128 = 1024;
    while n >= scale * 1024 && e + 1 < UNITS.len() {
        scale *= 1024;
        e += 1;
    }
    let unit = |e: usize| UNITS.get(e).copied().unwrap_or('Y');
    if n / scale < 10 {
        let tenths = (n * 10).div_ceil(scale);
        if tenths < 100 {
            return format!("{}.{}{}", tenths / 10, tenths % 10, unit(e));
        }
        return format!("10{}", unit(e));
    }
    let v = n.div_ceil(scale);
    if v >= 1024 && e + 1 < UNITS.len() {
        return format!("1.0{}", unit(e + 1));
    }
    format!("{v}{}", unit(e))
}

/// A block count (512-byte units) as GNU shows it: 1K blocks rounded up, or human.
pub(super) fn blocks(n: u64, o: &Opts) -> String {
    if o.human {
        human(n.saturating_mul(512))
    } else {
        n.div_ceil(2).to_string()
    }
}

/// GNU's `filemodestring`: type letter and nine permission letters with setuid/sticky.
pub(super) fn mode_string(kind: FileKind, perm: u32) -> String {
    let mut s = String::with_capacity(10);
    s.push(kind.letter());
    s.push_str(&perm_string(perm));
    s
}

pub(super) fn indicator_of(kind: FileKind, meta: Option<&Meta>, style: Indicator) -> &'static str {
    match (kind, style) {
        (_, Indicator::None) => "",
        (FileKind::Dir, _) => "/",
        (_, Indicator::Slash) => "",
        (FileKind::Symlink, _) => "@",
        (FileKind::Fifo, _) => "|",
        (FileKind::Socket, _) => "=",
        (FileKind::File, _) if meta.is_some_and(|m| m.perm & 0o111 != 0) => "*",
        (FileKind::File | FileKind::CharDevice(_) | FileKind::BlockDevice(_), _) => "",
    }
}

pub(super) fn shown_name(name: &OsStr, o: &Opts) -> Vec<u8> {
    if o.tty {
        quote_if_needed(name).into_bytes()
    } else {
        name.as_bytes().to_vec()
    }
}

/// GNU's `indent`: spaces and tabs (tab stops every 8) from column `from` to `to`; spaces
/// only when the width has no limit (`-w 0`), as GNU.
pub(super) fn indent(mut from: usize, to: usize, tabs: bool, out: &mut Vec<u8>) {
    while from < to {
        if tabs && to / TAB > (from + 1) / TAB {
            out.push(b'\t');
            from += TAB - from % TAB;
        } else {
            out.push(b' ');
            from += 1;
        }
    }
}

/// The `-i` and `-s` columns of a block, right-aligned to the widest.
pub(super) struct Prefix {
    pub(super) inodes: Vec<String>,
    pub(super) blocks: Vec<String>,
    pub(super) inode_width: usize,
    pub(super) block_width: usize,
}

impl Prefix {
    /// `extra`: items that count for the widths without being printed (see [`print_block`]).
    pub(super) fn new(items: &[Item], extra: &[Item], o: &Opts) -> Self {
        let inodes: Vec<String> = items
            .iter()
            .chain(extra)
            .map(|i| i.meta.as_ref().map_or("?".into(), |m| m.ino.to_string()))
            .collect();
        let blocks: Vec<String> = items
            .iter()
            .chain(extra)
            .map(|i| i.meta.as_ref().map_or("?".into(), |m| blocks(m.blocks, o)))
            .collect();
        Prefix {
            inode_width: inodes.iter().map(String::len).max().unwrap_or(0),
            block_width: blocks.iter().map(String::len).max().unwrap_or(0),
            inodes,
            blocks,
        }
    }

    pub(super) fn write(&self, k: usize, o: &Opts, out: &mut Vec<u8>) {
        let mut s = String::new();
        if o.inode {
            let v = self.inodes.get(k).map_or("?", String::as_str);
            let _ = write!(s, "{v:>w$} ", w = self.inode_width);
        }
        if o.size {
            let v = self.blocks.get(k).map_or("?", String::as_str);
            let _ = write!(s, "{v:>w$} ", w = self.block_width);
        }
        out.extend_from_slice(s.as_bytes());
    }
}

/// Prints a block of entries in the long format, with GNU's column widths.
pub(super) fn print_long(items: &[Item], extra: &[Item], o: &Opts, ctx: &Ctx, out: &mut Vec<u8>) {
    let prefix = Prefix::new(items, extra, o);
    let nlinks: Vec<String> = items
        .iter()
        .chain(extra)
        .map(|i| i.meta.as_ref().map_or("?".into(), |m| m.nlink.to_string()))
        .collect();
    // A device shows its number, `major, minor`, each part aligned in its own column.
    let device = |i: &Item| match i.meta.as_ref().map(|m| m.kind) {
        Some(FileKind::CharDevice(n) | FileKind::BlockDevice(n)) => Some(n),
        _ => None,
    };
    let devices = || items.iter().chain(extra).filter_map(device);
    let major_w = devices().map(|n| n.major.to_string().len()).max();
    let minor_w = devices()
        .map(|n| n.minor.to_string().len())
        .max()
        .unwrap_or(0);
    let sizes: Vec<String> = items
        .iter()
        .chain(extra)
        .map(|i| match (device(i), major_w) {
            (Some(n), Some(major_w)) => format!("{:>major_w$}, {:>minor_w$}", n.major, n.minor),
            _ => i.meta.as_ref().map_or("?".into(), |m| {
                if o.human {
                    human(m.len)
                } else {
                    m.len.to_string()
                }
            }),
        })
        .collect();
    let (user, group) = if o.numeric {
        (ctx.identity.uid.to_string(), ctx.identity.gid.to_string())
    } else {
        (ctx.identity.user.clone(), ctx.identity.group.clone())
    };
    let known = items.iter().chain(extra).any(|i| i.meta.is_some());
    let nlink_w = nlinks.iter().map(String::len).max().unwrap_or(0);
    let size_w = sizes.iter().map(String::len).max().unwrap_or(0);
    let user_w = if known { user.len() } else { 1 };
    let group_w = if known { group.len() } else { 1 };
    for (k, item) in items.iter().enumerate() {
        prefix.write(k, o, out);
        let nlink = nlinks.get(k).map_or("?", String::as_str);
        let size = sizes.get(k).map_or("?", String::as_str);
        let line = match &item.meta {
            Some(m) => format!(
                "{} {nlink:>nlink_w$} {user:<user_w$} {group:<group_w$} {size:>size_w$} {} ",
                mode_string(item.kind, m.perm),
                format_time(m.mtime, o),
            ),
            None => format!(
                "{}????????? {nlink:>nlink_w$} {:<user_w$} {:<group_w$} {size:>size_w$} {:>12} ",
                mode_string(item.kind, 0).get(..1).unwrap_or("?"),
                "?",
                "?",
                "?",
            ),
        };
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(&shown_name(&item.name, o));
        if item.kind == FileKind::Symlink {
            if let Some(text) = &item.link_text {
                out.extend_from_slice(b" -> ");
                out.extend_from_slice(&shown_name(text, o));
                if let Some(t) = &item.target {
                    out.extend_from_slice(indicator_of(t.kind, Some(t), o.indicator).as_bytes());
                }
            }
        } else {
            out.extend_from_slice(
                indicator_of(item.kind, item.meta.as_ref(), o.indicator).as_bytes(),
            );
        }
        out.push(b'\n');
    }
}

/// Prints a block of entries: long, one per line, or in GNU's vertical columns. `extra`
/// items count for the column widths only: GNU sizes the command-line files' columns before
/// it sets the directory operands apart, so `ls -l f dir` pads `f`'s size to `dir`'s.
pub(super) fn print_block(items: &[Item], extra: &[Item], o: &Opts, ctx: &Ctx, out: &mut Vec<u8>) {
    if o.format == Format::Long {
        return print_long(items, extra, o, ctx, out);
    }
    let columns = o.format == Format::Columns;
    // On a terminal names are shell-quoted; when any is, the others get a space so the
    // names line up (GNU's `align_variable_outer_quotes`).
    let mut names: Vec<Vec<u8>> = items
        .iter()
        .map(|e| {
            let mut n = shown_name(&e.name, o);
            n.extend_from_slice(indicator_of(e.kind, e.meta.as_ref(), o.indicator).as_bytes());
            n
        })
        .collect();
    if o.tty && columns {
        let quoted: Vec<bool> = items
            .iter()
            .map(|e| quote_if_needed(&e.name).as_bytes() != e.name.as_bytes())
            .collect();
        if quoted.iter().any(|&q| q) {
            for (n, q) in names.iter_mut().zip(quoted) {
                if !q {
                    n.insert(0, b' ');
                }
            }
        }
    }
    if o.inode || o.size {
        let prefix = Prefix::new(items, extra, o);
        for (k, n) in names.iter_mut().enumerate() {
            let mut p = Vec::new();
            prefix.write(k, o, &mut p);
            p.append(n);
            *n = p;
        }
    }
    if !columns || names.is_empty() {
        for n in names {
            out.extend_from_slice(&n);
            out.push(b'\n');
        }
        return;
    }
    let lens: Vec<usize> = names.iter().map(Vec::len).collect();
    let n = names.len();
    let max_cols = (o.width / MIN_COLUMN_WIDTH).clamp(1, n);
    // The widest layout whose lines stay shorter than the width (GNU `calculate_columns`).
    let mut best: (usize, Vec<usize>) = (1, vec![0]);
    for cols in 1..=max_cols {
        let rows = n.div_ceil(cols);
        if rows * cols - n >= rows {
            // Fewer columns than asked would be used: GNU counts it under the smaller one.
            continue;
        }
        let mut widths = vec![0; cols];
        for (i, &len) in lens.iter().enumerate() {
            let col = i / rows;
            let w = len + if col + 1 == cols { 0 } else { 2 };
            if let Some(slot) = widths.get_mut(col) {
                *slot = (*slot).max(w);
            }
        }
        if cols == 1 || widths.iter().sum::<usize>() < o.width {
            best = (cols, widths);
        }
    }
    let (cols, widths) = best;
    let rows = n.div_ceil(cols);
    for r in 0..rows {
        let mut pos = 0;
        for (c, width) in widths.iter().enumerate() {
            let i = c * rows + r;
            let Some(name) = names.get(i) else { break };
            out.extend_from_slice(name);
            if c + 1 < cols && i + rows < n {
                indent(
                    pos + lens.get(i).copied().unwrap_or(0),
                    pos + width,
                    o.width != usize::MAX,
                    out,
                );
            }
            pos += width;
        }
        out.push(b'\n');
    }
}
