//! `file`'s binary formats (file 5.44's descriptions): tar (checksummed headers), gzip, bzip2,
//! xz, zip, JPEG, `SQLite` and ELF. Each answers a description and a MIME type.

#![allow(clippy::format_push_string)]
use std::fmt::Write as _;

use crate::support::datetime::civil_from_days;

type Found = Option<(String, &'static str)>;

fn get(d: &[u8], at: usize, n: usize, big: bool) -> u64 {
    d.get(at..at.saturating_add(n)).map_or(0, |b| {
        let mut v = 0u64;
        if big {
            for &x in b {
                v = (v << 8) | u64::from(x);
            }
        } else {
            for &x in b.iter().rev() {
                v = (v << 8) | u64::from(x);
            }
        }
        v
    })
}

fn be(d: &[u8], at: usize, n: usize) -> u64 {
    get(d, at, n, true)
}

fn le(d: &[u8], at: usize, n: usize) -> u64 {
    get(d, at, n, false)
}

/// The formats known by their first bytes; `tail` is a gzip's last four bytes.
pub fn binary(data: &[u8], tail: Option<u32>) -> Found {
    tar(data)
        .or_else(|| gzip(data, tail))
        .or_else(|| compressed(data))
        .or_else(|| zip(data))
        .or_else(|| jpeg(data))
        .or_else(|| sqlite(data))
        .or_else(|| elf(data))
}

/// libmagic's `is_tar`: a valid header checksum, then the magic names the flavour.
fn tar(d: &[u8]) -> Found {
    let h = d.get(..512)?;
    let field = h.get(148..156)?;
    let digits: Vec<u8> = field
        .iter()
        .copied()
        .skip_while(|&b| b == b' ')
        .take_while(u8::is_ascii_digit)
        .collect();
    if digits.is_empty() {
        return None;
    }
    let recorded = digits.iter().try_fold(0u64, |v, &c| {
        (c <= b'7').then(|| v * 8 + u64::from(c - b'0'))
    })?;
    let sum: u64 = h
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                u64::from(b' ')
            } else {
                u64::from(b)
            }
        })
        .sum();
    if sum != recorded {
        return None;
    }
    let desc = match h.get(257..265) {
        Some(b"ustar  \0") => "POSIX tar archive (GNU)",
        Some(m) if m.starts_with(b"ustar\0") => "POSIX tar archive",
        _ => "tar archive",
    };
    Some((desc.to_string(), "application/x-tar"))
}

/// `asctime` in UTC without its newline (libmagic's `ledate`).
fn asctime(secs: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let wd = usize::try_from(days.rem_euclid(7)).unwrap_or(0);
    let mon = usize::try_from(m - 1).unwrap_or(0);
    format!(
        "{} {}{:3} {:02}:{:02}:{:02} {y}",
        DAYS.get(wd).unwrap_or(&"???"),
        MONTHS.get(mon).unwrap_or(&"???"),
        d,
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn gzip(d: &[u8], tail: Option<u32>) -> Found {
    if !d.starts_with(b"\x1f\x8b") {
        return None;
    }
    let mut s = String::from("gzip compressed data");
    let method = d.get(2).copied().unwrap_or(0);
    if method < 8 {
        s.push_str(", reserved method");
    } else if method > 8 {
        s.push_str(", unknown method");
    }
    let flags = d.get(3).copied().unwrap_or(0);
    if flags & 1 != 0 {
        s.push_str(", ASCII");
    }
    if flags & 2 != 0 {
        s.push_str(", has CRC");
    }
    if flags & 4 != 0 {
        s.push_str(", extra field");
    }
    if flags & 0xc == 8 {
        let name = d.get(10..).unwrap_or_default();
        let name = name.split(|&b| b == 0).next().unwrap_or_default();
        s.push_str(&format!(", was \"{}\"", String::from_utf8_lossy(name)));
    }
    if flags & 0x10 != 0 {
        s.push_str(", has comment");
    }
    if flags & 0x20 != 0 {
        s.push_str(", encrypted");
    }
    let mtime = le(d, 4, 4);
    if mtime > 0 {
        s.push_str(&format!(
            ", last modified: {}",
            asctime(i64::try_from(mtime).unwrap_or(0))
        ));
    }
    match d.get(8) {
        Some(2) => s.push_str(", max compression"),
        Some(4) => s.push_str(", max speed"),
        _ => {}
    }
    let os = match d.get(9) {
        Some(0) => "FAT filesystem (MS-DOS, OS/2, NT)",
        Some(1) => "Amiga",
        Some(2) => "VMS",
        Some(3) => "Unix",
        Some(5) => "Atari",
        Some(6) => "HPFS filesystem (OS/2, NT)",
        Some(7) => "MacOS",
        Some(10) => "Tops/20",
        Some(11) => "NTFS filesystem (NT)",
        Some(12) => "QDOS",
        Some(13) => "Acorn RISCOS",
        _ => "",
    };
    if !os.is_empty() {
        s.push_str(&format!(", from {os}"));
    }
    if let Some(t) = tail {
        s.push_str(&format!(", original size modulo 2^32 {t}"));
    }
    Some((s, "application/gzip"))
}

fn compressed(d: &[u8]) -> Found {
    if d.starts_with(b"BZh") {
        let mut s = String::from("bzip2 compressed data");
        if let Some(&c) = d.get(3).filter(|&&c| c > 47) {
            s.push_str(&format!(", block size = {}00k", char::from(c)));
        }
        return Some((s, "application/x-bzip2"));
    }
    if d.starts_with(b"\xfd7zXZ\0") {
        let check = match d.get(7).map(|b| b & 0xf) {
            Some(0) => ", checksum NONE",
            Some(1) => ", checksum CRC32",
            Some(4) => ", checksum CRC64",
            Some(0xa) => ", checksum SHA-256",
            _ => "",
        };
        return Some((format!("XZ compressed data{check}"), "application/x-xz"));
    }
    None
}

fn zip(d: &[u8]) -> Found {
    if !d.starts_with(b"PK\x03\x04") {
        return None;
    }
    let need = le(d, 4, 2);
    let method = match le(d, 8, 2) {
        0 => "store".to_string(),
        8 => "deflate".to_string(),
        9 => "deflate64".to_string(),
        12 => "bzip2".to_string(),
        14 => "lzma".to_string(),
        m => m.to_string(),
    };
    Some((
        format!(
            "Zip archive data, at least v{}.{} to extract, compression method={method}",
            need / 10,
            need % 10
        ),
        "application/zip",
    ))
}

fn jpeg(d: &[u8]) -> Found {
    if !d.starts_with(b"\xff\xd8\xff") {
        return None;
    }
    let mut s = String::from("JPEG image data");
    if d.get(6..11) == Some(b"JFIF\0") {
        let units = match d.get(13) {
            Some(0) => ", aspect ratio",
            Some(1) => ", resolution (DPI)",
            Some(2) => ", resolution (DPCM)",
            _ => "",
        };
        s.push_str(&format!(
            ", JFIF standard {}.{:02}{units}, density {}x{}, segment length {}",
            d.get(11).copied().unwrap_or(0),
            d.get(12).copied().unwrap_or(0),
            be(d, 14, 2),
            be(d, 16, 2),
            be(d, 4, 2)
        ));
    }
    // Walk the segments to the frame header.
    let mut at = 2usize;
    for _ in 0..64 {
        if d.get(at) != Some(&0xff) {
            break;
        }
        let marker = d.get(at + 1).copied().unwrap_or(0);
        let frame = match marker {
            0xc0 => Some("baseline"),
            0xc1 => Some("extended sequential"),
            0xc2 => Some("progressive"),
            _ => None,
        };
        if let Some(f) = frame {
            s.push_str(&format!(
                ", {f}, precision {}, {}x{}, components {}",
                d.get(at + 4).copied().unwrap_or(0),
                be(d, at + 7, 2),
                be(d, at + 5, 2),
                d.get(at + 9).copied().unwrap_or(0)
            ));
            break;
        }
        if matches!(marker, 0xd9 | 0xda) {
            break;
        }
        let len = usize::try_from(be(d, at + 2, 2)).unwrap_or(0);
        if len < 2 {
            break;
        }
        at += 2 + len;
    }
    Some((s, "image/jpeg"))
}

fn sqlite(d: &[u8]) -> Found {
    if !d.starts_with(b"SQLite format 3\0") {
        return None;
    }
    let enc = match be(d, 56, 4) {
        1 => ", UTF-8",
        2 => ", UTF-16 little endian",
        3 => ", UTF-16 big endian",
        _ => "",
    };
    Some((
        format!(
            "SQLite 3.x database, last written using SQLite version {}, file counter {}, database pages {}, cookie 0x{:x}, schema {}{enc}, version-valid-for {}",
            be(d, 96, 4),
            be(d, 24, 4),
            be(d, 28, 4),
            be(d, 40, 4),
            be(d, 44, 4),
            be(d, 92, 4)
        ),
        "application/vnd.sqlite3",
    ))
}

/// An ELF file's fields, read in its class and byte order.
struct Elf<'a> {
    d: &'a [u8],
    big: bool,
    wide: bool,
}

impl Elf<'_> {
    fn n(&self, at: usize, size: usize) -> u64 {
        get(self.d, at, size, self.big)
    }
    /// An address-sized field: 8 bytes in ELF64, 4 in ELF32.
    fn addr(&self, at: usize) -> u64 {
        self.n(at, if self.wide { 8 } else { 4 })
    }
    fn at(&self, at: usize, w64: usize, w32: usize) -> usize {
        at + if self.wide { w64 } else { w32 }
    }
    fn off(v: u64) -> usize {
        usize::try_from(v).unwrap_or(usize::MAX)
    }
}

const PIE_FLAG: u64 = 0x0800_0000;

#[allow(clippy::too_many_lines)]
fn elf(d: &[u8]) -> Found {
    if !d.starts_with(b"\x7fELF") {
        return None;
    }
    let wide = match d.get(4) {
        Some(1) => false,
        Some(2) => true,
        _ => return Some(("ELF invalid class".to_string(), "application/octet-stream")),
    };
    let big = d.get(5) == Some(&2);
    let e = Elf { d, big, wide };
    let ty = e.n(16, 2);
    let machine = match e.n(18, 2) {
        2 => "SPARC".to_string(),
        3 => "Intel 80386".to_string(),
        8 => "MIPS".to_string(),
        0x14 => "PowerPC or cisco 4500".to_string(),
        0x15 => "64-bit PowerPC or cisco 7500".to_string(),
        0x16 => "IBM S/390".to_string(),
        0x28 => "ARM".to_string(),
        0x2b => "SPARC V9".to_string(),
        0x3e => "x86-64".to_string(),
        0xb7 => "ARM aarch64".to_string(),
        0xf3 => "UCB RISC-V".to_string(),
        m => format!("*unknown arch 0x{m:x}*"),
    };
    let osabi = match d.get(7) {
        Some(0) => "SYSV".to_string(),
        Some(1) => "HP-UX".to_string(),
        Some(2) => "NetBSD".to_string(),
        Some(3) => "GNU/Linux".to_string(),
        Some(6) => "Solaris".to_string(),
        Some(9) => "FreeBSD".to_string(),
        Some(12) => "OpenBSD".to_string(),
        Some(n) => format!("unknown ABI {n}"),
        None => String::new(),
    };
    // Program headers: linking, interpreter, PIE flag, notes.
    let phoff = Elf::off(e.addr(e.at(28, 4, 0)));
    let phentsize = Elf::off(e.n(e.at(42, 12, 0), 2));
    let phnum = Elf::off(e.n(e.at(44, 12, 0), 2));
    let shoff = Elf::off(e.addr(e.at(32, 8, 0)));
    let shentsize = Elf::off(e.n(e.at(46, 12, 0), 2));
    let shnum = Elf::off(e.n(e.at(48, 12, 0), 2));
    let shstrndx = Elf::off(e.n(e.at(50, 12, 0), 2));
    let (mut dynamic, mut pie) = (false, false);
    let mut interp = None;
    let mut notes = Vec::new();
    let exec = matches!(ty, 2 | 3);
    if exec {
        for i in 0..phnum.min(512) {
            let p = phoff.saturating_add(i.saturating_mul(phentsize));
            let p_type = e.n(p, 4);
            let (off, filesz, align) = if wide {
                (e.n(p + 8, 8), e.n(p + 32, 8), e.n(p + 48, 8))
            } else {
                (e.n(p + 4, 4), e.n(p + 16, 4), e.n(p + 28, 4))
            };
            let (off, filesz) = (Elf::off(off), Elf::off(filesz));
            let seg = d.get(off..off.saturating_add(filesz)).unwrap_or_default();
            match p_type {
                2 => {
                    dynamic = true;
                    let step = if wide { 16 } else { 8 };
                    let mut at = 0;
                    while at + step <= seg.len() {
                        let tag = get(seg, at, step / 2, big);
                        let val = get(seg, at + step / 2, step / 2, big);
                        if tag == 0 {
                            break;
                        }
                        if tag == 0x6fff_fffb && val & PIE_FLAG != 0 {
                            pie = true;
                        }
                        at += step;
                    }
                }
                3 => {
                    let s = seg.split(|&b| b == 0).next().unwrap_or_default();
                    interp = Some(String::from_utf8_lossy(s).into_owned());
                }
                4 => read_notes(seg, big, if align == 8 { 8 } else { 4 }, &mut notes),
                _ => {}
            }
        }
    }
    let (what, mime) = match ty {
        1 => ("relocatable", "application/x-object"),
        2 => ("executable", "application/x-executable"),
        3 if pie => ("pie executable", "application/x-pie-executable"),
        3 => ("shared object", "application/x-sharedlib"),
        4 => ("core file", "application/x-coredump"),
        _ => ("unknown type", "application/octet-stream"),
    };
    let mut s = format!(
        "ELF {}-bit {} {what}, {machine}, version {} ({osabi})",
        if wide { 64 } else { 32 },
        if big { "MSB" } else { "LSB" },
        d.get(6).copied().unwrap_or(0)
    );
    if exec && phnum > 0 {
        if !dynamic {
            s.push_str(", statically linked");
        } else if interp.is_none() && pie {
            s.push_str(", static-pie linked");
        } else {
            s.push_str(", dynamically linked");
        }
        if let Some(i) = &interp {
            s.push_str(&format!(", interpreter {i}"));
        }
        for n in &notes {
            s.push_str(&format!(", {n}"));
        }
    }
    if matches!(ty, 1..=3) && (exec && phnum > 0 || ty == 1) {
        if shnum == 0 {
            if exec {
                s.push_str(", no section header");
            }
        } else {
            let sect = |i: usize| shoff.saturating_add(i.saturating_mul(shentsize));
            let strtab = Elf::off(e.addr(e.at(sect(shstrndx), 24, 16)));
            let (mut symtab, mut debug) = (false, false);
            let mut rel_notes = Vec::new();
            for i in 0..shnum.min(4096) {
                let h = sect(i);
                match e.n(h + 4, 4) {
                    2 => symtab = true,
                    7 if ty == 1 => {
                        let off = Elf::off(e.addr(e.at(h, 24, 16)));
                        let size = Elf::off(e.addr(e.at(h, 32, 20)));
                        let align = e.addr(e.at(h, 48, 32));
                        let seg = d.get(off..off.saturating_add(size)).unwrap_or_default();
                        read_notes(seg, big, if align == 8 { 8 } else { 4 }, &mut rel_notes);
                    }
                    _ => {}
                }
                let name = strtab.saturating_add(Elf::off(e.n(h, 4)));
                let name = d.get(name..).unwrap_or_default();
                if name.starts_with(b".debug_info\0") {
                    debug = true;
                }
            }
            for n in &rel_notes {
                s.push_str(&format!(", {n}"));
            }
            if debug {
                s.push_str(", with debug_info");
            }
            s.push_str(if symtab {
                ", not stripped"
            } else {
                ", stripped"
            });
        }
    }
    Some((s, mime))
}

/// The GNU notes file describes: the build id and the ABI tag.
fn read_notes(seg: &[u8], big: bool, align: usize, out: &mut Vec<String>) {
    let pad = |n: usize| n.div_ceil(align) * align;
    let mut at = 0usize;
    while at + 12 <= seg.len() {
        let namesz = Elf::off(get(seg, at, 4, big));
        let descsz = Elf::off(get(seg, at + 4, 4, big));
        let ty = get(seg, at + 8, 4, big);
        let name_at = at + 12;
        let desc_at = name_at.saturating_add(pad(namesz));
        let name = seg.get(name_at..name_at.saturating_add(namesz));
        let desc = seg
            .get(desc_at..desc_at.saturating_add(descsz))
            .unwrap_or_default();
        if name == Some(b"GNU\0") {
            match ty {
                3 => {
                    let kind = match descsz {
                        8 => "xxHash",
                        16 => "md5/uuid",
                        20 => "sha1",
                        _ => "",
                    };
                    let hex = desc.iter().fold(String::new(), |mut h, b| {
                        let _ = write!(h, "{b:02x}");
                        h
                    });
                    out.push(format!("BuildID[{kind}]={hex}"));
                }
                1 if descsz >= 16 => {
                    let os = match get(desc, 0, 4, big) {
                        0 => "GNU/Linux",
                        1 => "GNU/Hurd",
                        2 => "GNU/Solaris",
                        3 => "GNU/kFreeBSD",
                        _ => "<unknown>",
                    };
                    out.push(format!(
                        "for {os} {}.{}.{}",
                        get(desc, 4, 4, big),
                        get(desc, 8, 4, big),
                        get(desc, 12, 4, big)
                    ));
                }
                _ => {}
            }
        }
        let next = desc_at.saturating_add(pad(descsz));
        if next <= at {
            break;
        }
        at = next;
    }
}

#[cfg(test)]
mod tests {
    use super::asctime;

    #[test]
    fn asctime_as_libc() {
        assert_eq!(asctime(1_577_934_245), "Thu Jan  2 03:04:05 2020");
        assert_eq!(asctime(0), "Thu Jan  1 00:00:00 1970");
    }
}
