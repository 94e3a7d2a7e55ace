//! Arbitrary text as a store's URL or path (`store::Location`), and as a server's
//! error text: parsing must never panic; a remote root it accepts holds only a region,
//! bucket and profile of the characters a host name or a header may take; every URL
//! rendered for humans (`redact_url`) holds no user name or password; and
//! `escape_for_message` leaves no terminal control in what a message shows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use store::{escape_for_message, redact_url, Location, StoreRoot};

/// Whether every URL in `text` has no user information left but `***`.
fn redacted(text: &str) -> bool {
    text.match_indices("://").all(|(at, _)| {
        let tail = &text[at + 3..];
        let end = tail.find(['/', '?', '#']).unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            None => true,
            Some(_) => tail.starts_with("***@"),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for parsed in [Location::parse_input(text), Location::parse_output(text)] {
        match parsed {
            Ok(Location::Zarr(z)) => {
                if let StoreRoot::Remote(remote) = &z.root {
                    if let Some(region) = &remote.region {
                        assert!(region
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
                    }
                    if let Some(profile) = &remote.profile {
                        assert!(profile
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)));
                    }
                    assert!(!remote.bucket.contains(['@', '/', ':', '#', '?']));
                    let shown = remote.display_url();
                    assert!(redacted(&shown), "{shown}");
                    assert!(
                        !format!("{remote:?}").contains(':') || redacted(&format!("{remote:?}"))
                    );
                }
                assert!(redacted(&z.text), "{}", z.text);
            }
            Ok(Location::File(_)) => {}
            Err(e) => assert!(redacted(&e.text), "{}", e.text),
        }
    }
    let shown = escape_for_message(&redact_url(text));
    assert!(redacted(&shown), "{shown}");
    assert!(!shown.chars().any(|c| c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')));
});
