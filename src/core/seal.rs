//! The seal on evidence the gate writes for itself (memo entries, re-ask
//! records): HMAC-SHA256 (RFC 2104) over a purpose, the record's place and
//! its bytes, under a key only the gate holds. A record without a valid
//! seal was not written by a holder of the key, and is never believed.
//!
//! Pure: the key is handed in (`host::trust` reads it from the
//! environment or makes one for the process); nothing here reads a file.

use sha2::{Digest, Sha256};

/// SHA-256's block size, bytes.
const BLOCK: usize = 64;

/// A key that seals records and checks their seals.
#[derive(Clone)]
pub struct Seal {
    /// The key padded to one block (longer keys are hashed first, as RFC 2104 says).
    block: [u8; BLOCK],
}

impl std::fmt::Debug for Seal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A key is never printed.
        f.write_str("Seal(..)")
    }
}

impl Seal {
    /// A seal under `key`.
    pub fn new(key: &[u8]) -> Seal {
        let mut block = [0u8; BLOCK];
        if key.len() > BLOCK {
            block[..32].copy_from_slice(&Sha256::digest(key));
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        Seal { block }
    }

    /// HMAC-SHA256 of `message` under the key, 32 bytes.
    pub fn mac(&self, message: &[u8]) -> [u8; 32] {
        let pad = |byte: u8| self.block.map(|k| k ^ byte);
        let inner = Sha256::new()
            .chain_update(pad(0x36))
            .chain_update(message)
            .finalize();
        let outer = Sha256::new()
            .chain_update(pad(0x5c))
            .chain_update(inner)
            .finalize();
        let mut out = [0u8; 32];
        out.copy_from_slice(&outer);
        out
    }

    /// The seal of a record, lower-case hex: `purpose` says what kind of
    /// record it is, `place` where it is filed (a record moved to another
    /// place, or read as another kind, no longer fits its seal).
    pub fn tag(&self, purpose: &str, place: &str, bytes: &[u8]) -> String {
        let mut message = Vec::with_capacity(purpose.len() + place.len() + bytes.len() + 2);
        message.extend_from_slice(purpose.as_bytes());
        message.push(0);
        message.extend_from_slice(place.as_bytes());
        message.push(0);
        message.extend_from_slice(bytes);
        self.mac(&message)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// True when `tag` is the seal of this record under the key (compared
    /// in constant time).
    pub fn verifies(&self, purpose: &str, place: &str, bytes: &[u8], tag: &str) -> bool {
        let expected = self.tag(purpose, place, bytes);
        expected.len() == tag.len()
            && expected
                .bytes()
                .zip(tag.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn rfc_4231_test_vectors() {
        // Test case 1.
        assert_eq!(
            hex(&Seal::new(&[0x0b; 20]).mac(b"Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        // Test case 2: a short key.
        assert_eq!(
            hex(&Seal::new(b"Jefe").mac(b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than a block is hashed first.
        assert_eq!(
            hex(&Seal::new(&[0xaa; 131])
                .mac(b"Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn a_seal_binds_key_purpose_place_and_bytes() {
        let seal = Seal::new(b"k");
        let tag = seal.tag("reasks", "t/s/k1", b"{}");
        assert!(seal.verifies("reasks", "t/s/k1", b"{}", &tag));
        assert!(!seal.verifies("reasks", "t/s/k2", b"{}", &tag));
        assert!(!seal.verifies("memo", "t/s/k1", b"{}", &tag));
        assert!(!seal.verifies("reasks", "t/s/k1", b"{ }", &tag));
        assert!(!Seal::new(b"other").verifies("reasks", "t/s/k1", b"{}", &tag));
        assert!(!seal.verifies("reasks", "t/s/k1", b"{}", &tag[..63]));
        assert!(!seal.verifies("reasks", "t/s/k1", b"{}", ""));
        assert_eq!(format!("{seal:?}"), "Seal(..)");
    }
}
