//! Bytes and checksums: message digests and CRCs, encodings (base64, base32) and dumps.
//! `digest.rs` holds what the checksum commands share.

pub mod cksum;
pub mod digest;
pub mod sum;
