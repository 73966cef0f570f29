//! GNU's and bash's quoting of file names in diagnostics (gnulib `quotearg`, C locale).
//!
//! The styles that matter: [`quote`] (`shell-escape-always`, coreutils' `quoteaf()`:
//! `ls: cannot access 'x'`, `rm: cannot remove 'x'`), [`quote_if_needed`] (`shell-escape`,
//! `quotef()`: `cat: x: No such file or directory`, but `cat: 'a b': ...`), [`quote_locale`]
//! (`locale` style, coreutils' `quote()`: `mkdir: cannot create directory 'a\nb'`), and
//! [`ansic_if_needed`] (bash's builtins: `cd: $'a\nb': No such file or directory`).

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;

/// Quotes always: `'x'`, `"it's"`, `'a'$'\n''b'`.
pub fn quote(name: impl AsRef<OsStr>) -> String {
    shell_escape(name.as_ref().as_bytes(), true)
}

/// Quotes only when the name holds a character the shell would treat specially.
pub fn quote_if_needed(name: impl AsRef<OsStr>) -> String {
    shell_escape(name.as_ref().as_bytes(), false)
}

fn needs_quoting(b: &[u8]) -> bool {
    if b.is_empty() {
        return true;
    }
    // A leading `~` or `#` is special; elsewhere they are not.
    if matches!(b[0], b'~' | b'#') {
        return true;
    }
    b.iter().any(|&c| {
        !(c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'%' | b'+' | b',' | b'-' | b'.' | b'/' | b':' | b'@' | b'_' | b'#' | b'~' | b'='
            )
            || c >= 0x80)
    })
}

fn is_control(c: u8) -> bool {
    c < 0x20 || c == 0x7f || c >= 0x80
}

fn escape_control(c: u8, out: &mut String) {
    match c {
        b'\x07' => out.push_str("\\a"),
        b'\x08' => out.push_str("\\b"),
        b'\x0c' => out.push_str("\\f"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        b'\x0b' => out.push_str("\\v"),
        _ => {
            let _ = write!(out, "\\{c:03o}");
        }
    }
}

fn shell_escape(b: &[u8], always: bool) -> String {
    if !always && !needs_quoting(b) {
        return String::from_utf8_lossy(b).into_owned();
    }
    let has_single = b.contains(&b'\'');
    let has_control = b.iter().any(|&c| is_control(c));
    if !has_control && !has_single {
        return format!("'{}'", String::from_utf8_lossy(b));
    }
    if !has_control {
        // No control characters but a single quote: GNU switches to double quotes when it can.
        if !b.iter().any(|&c| matches!(c, b'"' | b'$' | b'`' | b'\\')) {
            return format!("\"{}\"", String::from_utf8_lossy(b));
        }
    }
    // Mixed: 'abc'\''def' for quotes, 'abc'$'\n''def' for control characters.
    // GNU opens with an empty `''` when the name starts with an escaped character.
    let mut out = if is_control(b[0]) {
        String::from("''")
    } else {
        String::new()
    };
    let mut in_quote = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\'' {
            if in_quote {
                out.push('\'');
                in_quote = false;
            }
            out.push_str("\\'");
            i += 1;
        } else if is_control(c) {
            if in_quote {
                out.push('\'');
                in_quote = false;
            }
            out.push_str("$'");
            while i < b.len() && is_control(b[i]) {
                escape_control(b[i], &mut out);
                i += 1;
            }
            out.push('\'');
        } else {
            if !in_quote {
                out.push('\'');
                in_quote = true;
            }
            let start = i;
            while i < b.len() && b[i] != b'\'' && !is_control(b[i]) {
                i += 1;
            }
            out.push_str(&String::from_utf8_lossy(&b[start..i]));
        }
    }
    if in_quote {
        out.push('\'');
    }
    out
}

/// `'x'` with C escapes inside (`\n`, `\'`, `\\`, `\377`): gnulib's `locale` style in the C
/// locale, used by coreutils' `quote()`.
pub fn quote_locale(name: impl AsRef<OsStr>) -> String {
    let mut out = String::from("'");
    for &c in name.as_ref().as_bytes() {
        match c {
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            c if is_control(c) => escape_control(c, &mut out),
            c => out.push(char::from(c)),
        }
    }
    out.push('\'');
    out
}

/// The name as is, or `$'...'` with C escapes when it holds a non-printable byte: how bash's
/// builtins show an operand (`cd: $'a\nb': No such file or directory`).
pub fn ansic_if_needed(name: impl AsRef<OsStr>) -> String {
    let b = name.as_ref().as_bytes();
    if !b.iter().any(|&c| is_control(c)) {
        return String::from_utf8_lossy(b).into_owned();
    }
    let mut out = String::from("$'");
    for &c in b {
        match c {
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x1b => out.push_str("\\E"),
            c if is_control(c) => escape_control(c, &mut out),
            c => out.push(char::from(c)),
        }
    }
    out.push('\'');
    out
}

/// The characters bash's `sh_backslash_quote` escapes with a backslash (its `bstab`).
fn backslashed(c: u8) -> bool {
    matches!(
        c,
        b'\t'
            | b'\n'
            | b' '
            | b'!'
            | b'"'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b','
            | b';'
            | b'<'
            | b'>'
            | b'?'
            | b'['
            | b'\\'
            | b']'
            | b'^'
            | b'`'
            | b'{'
            | b'|'
            | b'}'
    )
}

/// The length of the printable multibyte character at the start of `s` in a UTF-8 locale
/// (`mbrtowc` and `iswprint`), or `None` for an invalid sequence or a non-printable one.
fn printable_utf8(s: &[u8]) -> Option<usize> {
    let len = match s.first()? {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    let c = std::str::from_utf8(s.get(..len)?).ok()?.chars().next()?;
    (!c.is_control()).then_some(len)
}

/// bash's `ansic_shouldquote`: whether the string holds a character that is not printable
/// in the locale (any non-ASCII byte in the C locale).
fn should_ansi_quote(s: &[u8], utf8: bool) -> bool {
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        if c < 0x80 {
            if !(0x20..0x7f).contains(&c) {
                return true;
            }
            i += 1;
        } else if !utf8 {
            return true;
        } else {
            match printable_utf8(s.get(i..).unwrap_or_default()) {
                Some(n) => i += n,
                None => return true,
            }
        }
    }
    false
}

/// bash's `ansic_quote`: `$'...'` with C escapes, a non-printable byte as `\ooo`.
fn ansi_quote(s: &[u8], utf8: bool) -> Vec<u8> {
    let mut out = b"$'".to_vec();
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        let esc: Option<&[u8]> = match c {
            0x1b => Some(b"\\E"),
            0x07 => Some(b"\\a"),
            0x0b => Some(b"\\v"),
            0x08 => Some(b"\\b"),
            0x0c => Some(b"\\f"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            b'\\' => Some(b"\\\\"),
            b'\'' => Some(b"\\'"),
            _ => None,
        };
        if let Some(e) = esc {
            out.extend_from_slice(e);
            i += 1;
            continue;
        }
        if (0x20..0x7f).contains(&c) {
            out.push(c);
            i += 1;
            continue;
        }
        if let Some(n) = printable_utf8(s.get(i..).unwrap_or_default()).filter(|_| utf8) {
            out.extend_from_slice(s.get(i..i + n).unwrap_or_default());
            i += n;
            continue;
        }
        out.extend_from_slice(format!("\\{c:03o}").as_bytes());
        i += 1;
    }
    out.push(b'\'');
    out
}

/// bash's `printf %q`: `''` for an empty string, `$'...'` for one with a character that is
/// not printable in the locale (`utf8`: a UTF-8 one), else backslashes before the shell's
/// special characters (a leading `#`, a `~` at the start or after `:` or `=`).
pub fn printf_q(s: &[u8], utf8: bool) -> Vec<u8> {
    if s.is_empty() {
        return b"''".to_vec();
    }
    if should_ansi_quote(s, utf8) {
        return ansi_quote(s, utf8);
    }
    let mut out = Vec::with_capacity(s.len() * 2);
    for (i, &c) in s.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| s.get(p)).copied();
        if backslashed(c)
            || (c == b'#' && i == 0)
            || (c == b'~' && (i == 0 || prev == Some(b':') || prev == Some(b'=')))
        {
            out.push(b'\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names() {
        assert_eq!(quote("x"), "'x'");
        assert_eq!(quote_if_needed("x"), "x");
        assert_eq!(quote_if_needed("a b"), "'a b'");
        assert_eq!(quote_if_needed(""), "''");
    }

    #[test]
    fn locale_and_ansic_styles() {
        // `LC_ALL=C mkdir $'n\nd' "it's"` twice (File exists), coreutils 9.1.
        assert_eq!(quote_locale("n\nd"), "'n\\nd'");
        assert_eq!(quote_locale("it's"), "'it\\'s'");
        // `LC_ALL=C bash -c "cd \$'a\tb\x01\xff'; cd \$'it\\'s\n'; cd 'a b'"`, bash 5.2.
        assert_eq!(ansic_if_needed("a\tb\x01\u{ff}"), "$'a\\tb\\001\\303\\277'");
        assert_eq!(ansic_if_needed("it's\n"), "$'it\\'s\\n'");
        assert_eq!(ansic_if_needed("a b"), "a b");
    }

    #[test]
    fn single_quotes_and_controls() {
        assert_eq!(quote("it's"), "\"it's\"");
        assert_eq!(quote("a\nb"), "'a'$'\\n''b'");
        assert_eq!(quote("\n"), "''$'\\n'");
        assert_eq!(quote("it's $x"), "'it'\\''s $x'");
    }
}
