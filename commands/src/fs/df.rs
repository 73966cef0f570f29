//! `df [OPTION]... [FILE]...`, GNU coreutils 9.1, for the one filesystem the agent has: the
//! sandbox, mounted at the mount point, `sandbox` of type `tmpfs`, whose size is the write
//! quota and whose inodes are the file quota, with what the sandbox holds as used
//! ([`Ctx::usage`]). Every existing FILE is on it. GNU's columns, headers and widths (`-h`,
//! `-H`, `-k`, `-B`, `-T`, `-i`, `-P`, `--output`, `--total`); values round up as GNU's.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::size::{SizeError, block_size, human_ceil};
use crate::{Ctx, DiskUsage, Outcome, quote};

const SOURCE: &str = "sandbox";
const FSTYPE: &str = DiskUsage::FSTYPE;

/// Show information about the file system on which each FILE resides, or all file systems
/// by default.
#[allow(clippy::doc_markdown)]
#[derive(clap::Parser, Debug)]
#[command(override_usage = "df [OPTION]... [FILE]...")]
pub struct DfArgs {
    /// include pseudo, duplicate, inaccessible file systems
    #[arg(short = 'a', long = "all")]
    all: bool,
    /// scale sizes by SIZE before printing them
    #[arg(short = 'B', long = "block-size", value_name = "SIZE",
          overrides_with_all = ["human", "si", "k"])]
    block_size: Option<OsString>,
    /// print sizes in powers of 1024 (e.g., 1023M)
    #[arg(short = 'h', long = "human-readable", overrides_with_all = ["block_size", "si", "k"])]
    human: bool,
    /// print sizes in powers of 1000 (e.g., 1.1G)
    #[arg(short = 'H', long = "si", overrides_with_all = ["block_size", "human", "k"])]
    si: bool,
    /// list inode information instead of block usage
    #[arg(short = 'i', long = "inodes")]
    inodes: bool,
    /// like --block-size=1K
    #[arg(short = 'k', overrides_with_all = ["block_size", "human", "si"])]
    k: bool,
    /// limit listing to local file systems
    #[arg(short = 'l', long = "local")]
    local: bool,
    /// do not invoke sync before getting usage info (default)
    #[arg(long = "no-sync")]
    no_sync: bool,
    /// use the output format defined by FIELD_LIST, or print all fields if FIELD_LIST is
    /// omitted.
    #[arg(long = "output", value_name = "FIELD_LIST", num_args = 0..=1,
          require_equals = true, default_missing_value = "", action = clap::ArgAction::Append)]
    output: Vec<String>,
    /// use the POSIX output format
    #[arg(short = 'P', long = "portability")]
    portability: bool,
    /// invoke sync before getting usage info
    #[arg(long = "sync")]
    sync: bool,
    /// elide all entries insignificant to available space, and produce a grand total
    #[arg(long = "total")]
    total: bool,
    /// limit listing to file systems of type TYPE
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    types: Vec<String>,
    /// print file system type
    #[arg(short = 'T', long = "print-type")]
    print_type: bool,
    /// limit listing to file systems not of type TYPE
    #[arg(short = 'x', long = "exclude-type", value_name = "TYPE")]
    exclude_types: Vec<String>,
    files: Vec<OsString>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Source,
    Fstype,
    Itotal,
    Iused,
    Iavail,
    Ipcent,
    Size,
    Used,
    Avail,
    Pcent,
    File,
    Target,
}

const ALL: [Field; 12] = [
    Field::Source,
    Field::Fstype,
    Field::Itotal,
    Field::Iused,
    Field::Iavail,
    Field::Ipcent,
    Field::Size,
    Field::Used,
    Field::Avail,
    Field::Pcent,
    Field::File,
    Field::Target,
];

impl Field {
    fn parse(name: &str) -> Option<Field> {
        ALL.iter().copied().find(|f| f.name() == name)
    }
    fn name(self) -> &'static str {
        match self {
            Field::Source => "source",
            Field::Fstype => "fstype",
            Field::Itotal => "itotal",
            Field::Iused => "iused",
            Field::Iavail => "iavail",
            Field::Ipcent => "ipcent",
            Field::Size => "size",
            Field::Used => "used",
            Field::Avail => "avail",
            Field::Pcent => "pcent",
            Field::File => "file",
            Field::Target => "target",
        }
    }
    /// GNU's minimum width of the column.
    fn min_width(self) -> usize {
        match self {
            Field::Source => 14,
            Field::Fstype | Field::File | Field::Pcent => 4,
            Field::Target => 0,
            _ => 5,
        }
    }
    fn left(self) -> bool {
        matches!(
            self,
            Field::Source | Field::Fstype | Field::File | Field::Target
        )
    }
}

/// How block figures are shown.
enum Scale {
    Human(u64),
    Blocks(u64, String),
}

fn percent(used: u64, avail: u64) -> String {
    let total = u128::from(used) + u128::from(avail);
    if total == 0 {
        return "-".into();
    }
    format!("{}%", (u128::from(used) * 100).div_ceil(total))
}

fn scale_of(a: &DfArgs) -> Result<Scale, Stop> {
    if a.human {
        return Ok(Scale::Human(1024));
    }
    if a.si {
        return Ok(Scale::Human(1000));
    }
    if let Some(b) = &a.block_size {
        return match block_size(b.as_bytes()) {
            Ok((n, suffix)) => Ok(Scale::Blocks(n, suffix)),
            Err(SizeError::Overflow) => {
                Err(Stop::Fail(format!("-B argument {} too large", quote(b))))
            }
            Err(SizeError::Invalid) => Err(Stop::Fail(format!("invalid -B argument {}", quote(b)))),
        };
    }
    Ok(Scale::Blocks(1024, String::new()))
}

/// The `1K-blocks` header of a block size: `1K`, `1M`, `512B`…
fn blocks_header(b: u64) -> String {
    let units = ["K", "M", "G", "T", "P", "E"];
    let mut v = b;
    for (i, u) in units.iter().enumerate() {
        if !v.is_multiple_of(1024) {
            break;
        }
        v /= 1024;
        if !v.is_multiple_of(1024) || i + 1 == units.len() {
            return format!("{v}{u}-blocks");
        }
    }
    format!("{b}B-blocks")
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<DfArgs>(args)?;
    let mut fields: Vec<Field> = Vec::new();
    let output_given = !a.output.is_empty();
    for list in &a.output {
        if list.is_empty() {
            fields.extend(ALL);
            continue;
        }
        for name in list.split(',') {
            let Some(f) = Field::parse(name) else {
                return Err(Stop::Usage(format!(
                    "option --output: field {} unknown",
                    quote(name)
                )));
            };
            if fields.contains(&f) {
                return Err(Stop::Usage(format!(
                    "option --output: field {} used more than once",
                    quote(name)
                )));
            }
            fields.push(f);
        }
    }
    if output_given && a.inodes {
        return Err(Stop::Usage(
            "options -i and --output are mutually exclusive".into(),
        ));
    }
    if output_given && a.print_type {
        return Err(Stop::Usage(
            "options -T and --output are mutually exclusive".into(),
        ));
    }
    if output_given && a.portability {
        return Err(Stop::Usage(
            "options -P and --output are mutually exclusive".into(),
        ));
    }
    if !output_given {
        fields.push(Field::Source);
        if a.print_type {
            fields.push(Field::Fstype);
        }
        if a.inodes {
            fields.extend([Field::Itotal, Field::Iused, Field::Iavail, Field::Ipcent]);
        } else {
            fields.extend([Field::Size, Field::Used, Field::Avail, Field::Pcent]);
        }
        fields.push(Field::Target);
    }
    let scale = scale_of(&a)?;
    let human = matches!(scale, Scale::Human(_));
    let u = ctx.disk_usage();
    let mut o = Outcome::ok();
    let mut status = 0;
    // Which rows: one per FILE on the sandbox, or the sandbox once.
    let mut rows: Vec<String> = Vec::new();
    if a.files.is_empty() {
        rows.push("-".into());
    }
    for f in &a.files {
        match ctx.fs.stat(&ctx.resolve(f), true) {
            Ok(_) => rows.push(f.to_string_lossy().into_owned()),
            Err(e) => {
                o.err(format!("df: {}: {e}\n", f.to_string_lossy()));
                status = 1;
            }
        }
    }
    let type_ok = (a.types.is_empty() || a.types.iter().any(|t| t == FSTYPE))
        && !a.exclude_types.iter().any(|t| t == FSTYPE);
    if !type_ok {
        rows.clear();
        o.err("df: no file systems processed\n");
    }
    if rows.is_empty() {
        o.status = 1;
        return Ok(o);
    }
    // Space is used by 4 KiB blocks, as on a real filesystem.
    let used_bytes = u.used_bytes.div_ceil(4096).saturating_mul(4096);
    let avail_bytes = u.quota_bytes.saturating_sub(used_bytes);
    let ifree = u.file_quota.saturating_sub(u.files);
    let show = |n: u64, count: bool| -> String {
        match &scale {
            Scale::Human(base) => human_ceil(n, *base),
            Scale::Blocks(_, _) if count => n.to_string(),
            Scale::Blocks(b, suffix) => format!("{}{suffix}", n.div_ceil((*b).max(1))),
        }
    };
    let header = |f: Field| -> String {
        match f {
            Field::Source => "Filesystem".into(),
            Field::Fstype => "Type".into(),
            Field::Itotal => "Inodes".into(),
            Field::Iused => "IUsed".into(),
            Field::Iavail => "IFree".into(),
            Field::Ipcent => "IUse%".into(),
            Field::Size => match &scale {
                Scale::Human(_) => "Size".into(),
                Scale::Blocks(b, _) if a.portability => format!("{b}-blocks"),
                Scale::Blocks(b, _) => blocks_header(*b),
            },
            Field::Used => "Used".into(),
            Field::Avail if !output_given && !human => "Available".into(),
            Field::Avail => "Avail".into(),
            Field::Pcent if a.portability && !human => "Capacity".into(),
            Field::Pcent => "Use%".into(),
            Field::File => "File".into(),
            Field::Target => "Mounted on".into(),
        }
    };
    let mount = ctx.mount_point.to_string_lossy().into_owned();
    let value = |f: Field, file: &str, total: bool| -> String {
        match f {
            Field::Source if total => "total".into(),
            Field::Source => SOURCE.into(),
            Field::Fstype if !total => FSTYPE.into(),
            Field::Itotal => show(u.file_quota, true),
            Field::Iused => show(u.files, true),
            Field::Iavail => show(ifree, true),
            Field::Ipcent => percent(u.files, ifree),
            Field::Size => show(u.quota_bytes, false),
            Field::Used => show(used_bytes, false),
            Field::Avail => show(avail_bytes, false),
            Field::Pcent => percent(used_bytes, avail_bytes),
            Field::File => file.into(),
            Field::Target | Field::Fstype if total => "-".into(),
            Field::Fstype => FSTYPE.into(),
            Field::Target => mount.clone(),
        }
    };
    let mut table: Vec<Vec<String>> = vec![fields.iter().map(|&f| header(f)).collect()];
    for file in &rows {
        table.push(fields.iter().map(|&f| value(f, file, false)).collect());
    }
    if a.total {
        table.push(fields.iter().map(|&f| value(f, "-", true)).collect());
    }
    let widths: Vec<usize> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            table
                .iter()
                .filter_map(|r| r.get(i).map(String::len))
                .max()
                .unwrap_or(0)
                .max(f.min_width())
        })
        .collect();
    for row in &table {
        let mut line = String::new();
        for (i, (cell, f)) in row.iter().zip(&fields).enumerate() {
            if i > 0 {
                line.push(' ');
            }
            let w = widths.get(i).copied().unwrap_or(0);
            if f.left() {
                if i + 1 == fields.len() {
                    line.push_str(cell);
                } else {
                    let _ = write!(line, "{cell:<w$}");
                }
            } else {
                let _ = write!(line, "{cell:>w$}");
            }
        }
        line.push('\n');
        o.out(line);
    }
    o.status = status;
    Ok(o)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::CommandName::Df;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn df(args: &[&str]) -> (String, String, i32) {
        text(&World::new(MemFs::rooted("/s").file("/s/f", b"x")).run(Df, args))
    }

    #[test]
    fn one_sandbox_line() {
        assert_eq!(
            df(&[]).0,
            "Filesystem     1K-blocks  Used Available Use% Mounted on\n\
             sandbox          8388608     0   8388608   0% /s\n"
        );
        assert_eq!(
            df(&["-h", "f"]).0,
            "Filesystem      Size  Used Avail Use% Mounted on\nsandbox         8.0G     0  8.0G   0% /s\n"
        );
        assert_eq!(
            df(&["--output=source,target,pcent"]).0,
            "Filesystem     Mounted on Use%\nsandbox        /s           0%\n"
        );
        assert_eq!(
            df(&["-iT"]).0,
            "Filesystem     Type   Inodes IUsed   IFree IUse% Mounted on\n\
             sandbox        tmpfs 1000000     0 1000000    0% /s\n"
        );
        assert!(
            df(&["-P"])
                .0
                .starts_with("Filesystem     1024-blocks  Used Available Capacity Mounted on\n")
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            df(&["missing"]),
            (
                String::new(),
                "df: missing: No such file or directory\n".into(),
                1
            )
        );
        assert!(
            df(&["--output=foo"])
                .1
                .starts_with("df: option --output: field 'foo' unknown\nTry")
        );
        assert!(
            df(&["-i", "--output=size"])
                .1
                .starts_with("df: options -i and --output are")
        );
    }
}
