//! The journal's records written as JSON by hand, the one way they are written: the text
//! `serde_json` would give for the types' serde shapes (tagged enums, tuples as arrays), which
//! is how they are read back (`Deserialize`). A line that changes something writes four
//! records; made through serde's generic serializer they cost more than the rest of the
//! line's bookkeeping together. `json::tests` pins the text, byte for byte.

use crate::sandbox::{Fingerprint, Times};

use super::record::{Inverse, Record, RecordRef, RelPath};

/// A value the journal writes as JSON.
pub(crate) trait ToJson {
    /// Appends its JSON to `out`: `false` for a value that is never written
    /// ([`Record::Skimmed`]), with `out` then holding part of it.
    fn to_json(&self, out: &mut Vec<u8>) -> bool;
}

/// Appends `s` as a JSON string, escaped as `serde_json` escapes it: `"`, `\` and the
/// control characters below U+0020 (`\b \t \n \f \r` short, the others `\u00XX`).
pub(crate) fn push_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            b'\n' => b'n',
            b'\t' => b't',
            b'\r' => b'r',
            0x08 => b'b',
            0x0c => b'f',
            0..=0x1f => 0,
            _ => continue,
        };
        out.extend_from_slice(bytes.get(from..i).unwrap_or_default());
        from = i + 1;
        if short == 0 {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.push(b'\\');
            out.push(short);
        }
    }
    out.extend_from_slice(bytes.get(from..).unwrap_or_default());
    out.push(b'"');
}

fn push_int(out: &mut Vec<u8>, n: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Starts an object with its tag: `{"<key>":"<name>"`.
fn open(out: &mut Vec<u8>, key: &str, name: &str) {
    out.extend_from_slice(b"{\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":\"");
    out.extend_from_slice(name.as_bytes());
    out.push(b'"');
}

/// Starts a field after the first: `,"<key>":`.
fn key(out: &mut Vec<u8>, key: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
}

fn int_field(out: &mut Vec<u8>, name: &str, n: impl itoa::Integer) {
    key(out, name);
    push_int(out, n);
}

fn str_field(out: &mut Vec<u8>, name: &str, s: &str) {
    key(out, name);
    push_str(out, s);
}

/// A (seconds, nanoseconds) pair: `[s,ns]`.
fn push_pair(out: &mut Vec<u8>, (s, ns): (i64, i64)) {
    out.push(b'[');
    push_int(out, s);
    out.push(b',');
    push_int(out, ns);
    out.push(b']');
}

fn pair_field(out: &mut Vec<u8>, name: &str, pair: (i64, i64)) {
    key(out, name);
    push_pair(out, pair);
}

/// Appends each item, separated by commas, in brackets.
fn push_list<T>(
    out: &mut Vec<u8>,
    items: &[T],
    mut each: impl FnMut(&mut Vec<u8>, &T) -> bool,
) -> bool {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if !each(out, item) {
            return false;
        }
    }
    out.push(b']');
    true
}

impl ToJson for RelPath {
    fn to_json(&self, out: &mut Vec<u8>) -> bool {
        match self {
            RelPath::Text(s) => push_str(out, s),
            RelPath::Bytes(b) => {
                push_list(out, b, |out, &b| {
                    push_int(out, b);
                    true
                });
            }
        }
        true
    }
}

fn path_field(out: &mut Vec<u8>, name: &str, path: &RelPath) {
    key(out, name);
    path.to_json(out);
}

impl ToJson for Times {
    fn to_json(&self, out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(b"{\"atime\":");
        push_pair(out, self.atime);
        pair_field(out, "mtime", self.mtime);
        out.push(b'}');
        true
    }
}

fn times_field(out: &mut Vec<u8>, times: &Times) {
    key(out, "times");
    times.to_json(out);
}

impl ToJson for Inverse {
    fn to_json(&self, out: &mut Vec<u8>) -> bool {
        let tag = |out: &mut Vec<u8>, name| open(out, "undo", name);
        match self {
            Inverse::Remove { at } => {
                tag(out, "remove");
                path_field(out, "at", at);
            }
            Inverse::Restore {
                at,
                blob,
                mode,
                times,
            } => {
                tag(out, "restore");
                path_field(out, "at", at);
                str_field(out, "blob", blob);
                int_field(out, "mode", *mode);
                times_field(out, times);
            }
            Inverse::Truncate { at, len, times } => {
                tag(out, "truncate");
                path_field(out, "at", at);
                int_field(out, "len", *len);
                times_field(out, times);
            }
            Inverse::Untrash { at, trash_id } => {
                tag(out, "untrash");
                path_field(out, "at", at);
                str_field(out, "trash_id", trash_id);
            }
            Inverse::RenameBack { from, to } => {
                tag(out, "rename_back");
                path_field(out, "from", from);
                path_field(out, "to", to);
            }
            Inverse::Unstash { at, blob } => {
                tag(out, "unstash");
                path_field(out, "at", at);
                str_field(out, "blob", blob);
            }
            Inverse::Mkdir { at, mode } => {
                tag(out, "mkdir");
                path_field(out, "at", at);
                int_field(out, "mode", *mode);
            }
            Inverse::Times { at, times } => {
                tag(out, "times");
                path_field(out, "at", at);
                times_field(out, times);
            }
            Inverse::Mode { at, mode } => {
                tag(out, "mode");
                path_field(out, "at", at);
                int_field(out, "mode", *mode);
            }
        }
        out.push(b'}');
        true
    }
}

impl ToJson for Fingerprint {
    fn to_json(&self, out: &mut Vec<u8>) -> bool {
        let tag = |out: &mut Vec<u8>, name| open(out, "k", name);
        match *self {
            Fingerprint::Absent => tag(out, "absent"),
            Fingerprint::File { ino, size, mtime } | Fingerprint::Link { ino, size, mtime } => {
                let link = matches!(self, Fingerprint::Link { .. });
                tag(out, if link { "link" } else { "file" });
                int_field(out, "ino", ino);
                int_field(out, "size", size);
                pair_field(out, "mtime", mtime);
            }
            Fingerprint::Dir { ino } => {
                tag(out, "dir");
                int_field(out, "ino", ino);
            }
            Fingerprint::Other { ino } => {
                tag(out, "other");
                int_field(out, "ino", ino);
            }
            Fingerprint::Unknown => tag(out, "unknown"),
        }
        out.push(b'}');
        true
    }
}

/// What a change left (see [`super::record::After`]): `null` where there is nothing to check.
fn after_field(out: &mut Vec<u8>, after: Option<&[Option<Fingerprint>]>) {
    key(out, "after");
    match after {
        None => out.extend_from_slice(b"null"),
        Some(list) => {
            push_list(out, list, |out, f| match f {
                None => {
                    out.extend_from_slice(b"null");
                    true
                }
                Some(f) => f.to_json(out),
            });
        }
    }
}

/// A `begin` record's fields.
fn begin(out: &mut Vec<u8>, session: &str, line: &str, time: u64) {
    open(out, "t", "begin");
    str_field(out, "session", session);
    str_field(out, "line", line);
    int_field(out, "time", time);
}

/// A `do` record's fields.
fn change(out: &mut Vec<u8>, seq: u64, op: &str, path: &str, undo: &[Inverse]) -> bool {
    open(out, "t", "do");
    int_field(out, "seq", seq);
    str_field(out, "op", op);
    str_field(out, "path", path);
    key(out, "undo");
    push_list(out, undo, |out, inverse| inverse.to_json(out))
}

impl ToJson for Record {
    fn to_json(&self, out: &mut Vec<u8>) -> bool {
        match self {
            Record::Begin {
                session,
                line,
                time,
            } => begin(out, session, line, *time),
            Record::Do {
                seq,
                op,
                path,
                undo,
            } => {
                if !change(out, *seq, op, path, undo) {
                    return false;
                }
            }
            Record::Done { seq, after } => {
                open(out, "t", "done");
                int_field(out, "seq", *seq);
                after_field(out, Some(after));
            }
            Record::Failed { seq, after } => {
                open(out, "t", "failed");
                int_field(out, "seq", *seq);
                after_field(out, after.as_deref());
            }
            Record::End {
                status,
                time,
                closed_by,
            } => {
                open(out, "t", "end");
                int_field(out, "status", *status);
                int_field(out, "time", *time);
                if let Some(by) = closed_by {
                    str_field(out, "closed_by", by);
                }
            }
            Record::RevertBegin {
                session,
                by,
                time,
                order,
            } => {
                open(out, "t", "revert_begin");
                str_field(out, "session", session);
                str_field(out, "by", by);
                int_field(out, "time", *time);
                int_field(out, "order", *order);
            }
            Record::RevertStep { seq, i } => {
                open(out, "t", "revert_step");
                int_field(out, "seq", *seq);
                int_field(out, "i", *i);
            }
            Record::RevertEnd { kept } => {
                open(out, "t", "revert_end");
                int_field(out, "kept", *kept);
            }
            Record::Dropped {} => open(out, "t", "dropped"),
            Record::Skimmed => return false,
        }
        out.push(b'}');
        true
    }
}

impl ToJson for RecordRef<'_> {
    fn to_json(&self, out: &mut Vec<u8>) -> bool {
        match *self {
            RecordRef::Begin {
                session,
                line,
                time,
            } => begin(out, session, line, time),
            RecordRef::Do {
                seq,
                op,
                path,
                undo,
            } => {
                if !change(out, seq, op, path, undo) {
                    return false;
                }
            }
        }
        out.push(b'}');
        true
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::txn::record::After;

    /// One value of each record, inverse and fingerprint shape, with the text to escape.
    fn samples() -> Vec<Record> {
        let t = Times {
            atime: (1_795_601_026, 192_402_634),
            mtime: (-3, 999_999_999),
        };
        let text = |s: &str| RelPath::Text(s.to_string());
        let undo = vec![
            Inverse::Remove { at: text("a") },
            Inverse::Restore {
                at: text("d/\"q\"\\b"),
                blob: "blobs/txn-1/2".into(),
                mode: 0o100_644,
                times: t,
            },
            Inverse::Truncate {
                at: RelPath::Bytes(vec![0xff, b'a', 0]),
                len: u64::MAX,
                times: t,
            },
            Inverse::Untrash {
                at: text("é\u{1}\u{1f}\u{7f}\t\n\r\u{8}\u{c}"),
                trash_id: "t-1".into(),
            },
            Inverse::RenameBack {
                from: text("x"),
                to: RelPath::Bytes(vec![]),
            },
            Inverse::Unstash {
                at: text(""),
                blob: "stash/1".into(),
            },
            Inverse::Mkdir {
                at: text("d"),
                mode: 0o40_755,
            },
            Inverse::Times {
                at: text("d"),
                times: t,
            },
            Inverse::Mode {
                at: text("d"),
                mode: 0,
            },
        ];
        let after: After = vec![
            None,
            Some(Fingerprint::Absent),
            Some(Fingerprint::File {
                ino: 1,
                size: 2,
                mtime: (3, 4),
            }),
            Some(Fingerprint::Dir { ino: 5 }),
            Some(Fingerprint::Link {
                ino: 6,
                size: 7,
                mtime: (-8, 9),
            }),
            Some(Fingerprint::Other { ino: u64::MAX }),
            Some(Fingerprint::Unknown),
        ];
        vec![
            Record::Begin {
                session: "s-1".into(),
                line: "echo \u{1}\"é\" >> f\n\u{2028}".into(),
                time: 9,
            },
            Record::Do {
                seq: 3,
                op: "append".into(),
                path: "/d/f \"x\"".into(),
                undo,
            },
            Record::Do {
                seq: 4,
                op: "mkdir".into(),
                path: String::new(),
                undo: Vec::new(),
            },
            Record::Done {
                seq: 3,
                after: after.clone(),
            },
            Record::Failed {
                seq: 1,
                after: Some(after),
            },
            Record::Failed {
                seq: 2,
                after: None,
            },
            Record::End {
                status: -1,
                time: 0,
                closed_by: None,
            },
            Record::End {
                status: 130,
                time: 5,
                closed_by: Some("rollback".into()),
            },
            Record::RevertBegin {
                session: "s-2".into(),
                by: "undo".into(),
                time: 6,
                order: 7,
            },
            Record::RevertStep { seq: 1, i: 2 },
            Record::RevertEnd { kept: 0 },
            Record::Dropped {},
        ]
    }

    /// What `serde_json` wrote for [`samples`] (before the records were written by hand).
    const WRITTEN: [&str; 12] = [
        "{\"t\":\"begin\",\"session\":\"s-1\",\"line\":\"echo \\u0001\\\"\u{e9}\\\" >> f\\n\u{2028}\",\"time\":9}",
        "{\"t\":\"do\",\"seq\":3,\"op\":\"append\",\"path\":\"/d/f \\\"x\\\"\",\"undo\":[{\"undo\":\"remove\",\"at\":\"a\"},{\"undo\":\"restore\",\"at\":\"d/\\\"q\\\"\\\\b\",\"blob\":\"blobs/txn-1/2\",\"mode\":33188,\"times\":{\"atime\":[1795601026,192402634],\"mtime\":[-3,999999999]}},{\"undo\":\"truncate\",\"at\":[255,97,0],\"len\":18446744073709551615,\"times\":{\"atime\":[1795601026,192402634],\"mtime\":[-3,999999999]}},{\"undo\":\"untrash\",\"at\":\"\u{e9}\\u0001\\u001f\u{7f}\\t\\n\\r\\b\\f\",\"trash_id\":\"t-1\"},{\"undo\":\"rename_back\",\"from\":\"x\",\"to\":[]},{\"undo\":\"unstash\",\"at\":\"\",\"blob\":\"stash/1\"},{\"undo\":\"mkdir\",\"at\":\"d\",\"mode\":16877},{\"undo\":\"times\",\"at\":\"d\",\"times\":{\"atime\":[1795601026,192402634],\"mtime\":[-3,999999999]}},{\"undo\":\"mode\",\"at\":\"d\",\"mode\":0}]}",
        "{\"t\":\"do\",\"seq\":4,\"op\":\"mkdir\",\"path\":\"\",\"undo\":[]}",
        "{\"t\":\"done\",\"seq\":3,\"after\":[null,{\"k\":\"absent\"},{\"k\":\"file\",\"ino\":1,\"size\":2,\"mtime\":[3,4]},{\"k\":\"dir\",\"ino\":5},{\"k\":\"link\",\"ino\":6,\"size\":7,\"mtime\":[-8,9]},{\"k\":\"other\",\"ino\":18446744073709551615},{\"k\":\"unknown\"}]}",
        "{\"t\":\"failed\",\"seq\":1,\"after\":[null,{\"k\":\"absent\"},{\"k\":\"file\",\"ino\":1,\"size\":2,\"mtime\":[3,4]},{\"k\":\"dir\",\"ino\":5},{\"k\":\"link\",\"ino\":6,\"size\":7,\"mtime\":[-8,9]},{\"k\":\"other\",\"ino\":18446744073709551615},{\"k\":\"unknown\"}]}",
        "{\"t\":\"failed\",\"seq\":2,\"after\":null}",
        "{\"t\":\"end\",\"status\":-1,\"time\":0}",
        "{\"t\":\"end\",\"status\":130,\"time\":5,\"closed_by\":\"rollback\"}",
        "{\"t\":\"revert_begin\",\"session\":\"s-2\",\"by\":\"undo\",\"time\":6,\"order\":7}",
        "{\"t\":\"revert_step\",\"seq\":1,\"i\":2}",
        "{\"t\":\"revert_end\",\"kept\":0}",
        "{\"t\":\"dropped\"}",
    ];

    #[test]
    fn records_are_written_as_serde_wrote_them() {
        for (record, want) in samples().iter().zip(WRITTEN) {
            let mut out = Vec::new();
            assert!(record.to_json(&mut out));
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }

    #[test]
    fn records_written_read_back_as_themselves() {
        for record in samples() {
            let mut out = Vec::new();
            assert!(record.to_json(&mut out));
            let read: Record = serde_json::from_slice(&out).unwrap();
            assert_eq!(format!("{read:?}"), format!("{record:?}"));
        }
    }

    #[test]
    fn borrowed_records_are_written_as_records() {
        let undo = vec![Inverse::Truncate {
            at: RelPath::Text("d/f \"x\"".into()),
            len: 7,
            times: Times {
                atime: (1, 2),
                mtime: (3, 4),
            },
        }];
        let written = |r: &dyn ToJson| {
            let mut out = Vec::new();
            assert!(r.to_json(&mut out));
            out
        };
        let line = "echo \u{1}\"é\" >> f\n";
        assert_eq!(
            written(&RecordRef::Begin {
                session: "s-1",
                line,
                time: 9,
            }),
            written(&Record::Begin {
                session: "s-1".into(),
                line: line.into(),
                time: 9,
            })
        );
        assert_eq!(
            written(&RecordRef::Do {
                seq: 3,
                op: "append",
                path: "/d/f",
                undo: &undo,
            }),
            written(&Record::Do {
                seq: 3,
                op: "append".into(),
                path: "/d/f".into(),
                undo: undo.clone(),
            })
        );
    }

    #[test]
    fn a_skimmed_record_is_never_written() {
        assert!(!Record::Skimmed.to_json(&mut Vec::new()));
    }
}
