//! Bytes and checksums: message digests and CRCs, encodings (base64, base32) and dumps.
//! `digest.rs` holds what the checksum commands share; [`Inputs`] is the concatenated input
//! of the dumpers (`od`, `hexdump`).

use std::ffi::OsString;
use std::io::Read;

use crate::support::input::{open_input, operand_error};
use crate::{Ctx, FsError, Outcome};

pub mod base;
pub mod cksum;
pub mod digest;
pub mod file;
pub mod filemagic;
pub mod hexdump;
pub mod od;
pub mod strings;
pub mod sum;
pub mod xxd;

/// The concatenated inputs, read one after the other; errors reported as they come.
pub struct Inputs<'a> {
    ctx: &'a Ctx<'a>,
    names: std::vec::IntoIter<OsString>,
    current: Option<Box<dyn Read + 'a>>,
    pub failed: bool,
    current_name: OsString,
}

impl<'a> Inputs<'a> {
    pub fn new(ctx: &'a Ctx<'a>, names: Vec<OsString>) -> Self {
        Inputs {
            ctx,
            names: names.into_iter(),
            current: None,
            failed: false,
            current_name: OsString::new(),
        }
    }

    /// Fills `buf` as far as the inputs go; returns how many bytes.
    pub fn fill(&mut self, buf: &mut [u8], o: &mut Outcome) -> usize {
        let mut got = 0;
        while got < buf.len() {
            if self.current.is_none() {
                let Some(name) = self.names.next() else {
                    break;
                };
                match open_input(self.ctx, &name) {
                    Ok(r) => {
                        self.current = Some(r);
                        self.current_name = name;
                    }
                    Err(e) => {
                        o.err(operand_error(self.ctx.name, &name, &e));
                        self.failed = true;
                        continue;
                    }
                }
            }
            let Some(r) = self.current.as_mut() else {
                break;
            };
            match r.read(buf.get_mut(got..).unwrap_or_default()) {
                Ok(0) => self.current = None,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    o.err(operand_error(
                        self.ctx.name,
                        &self.current_name,
                        &FsError::from_io(&e),
                    ));
                    self.failed = true;
                    self.current = None;
                }
            }
        }
        got
    }
}
