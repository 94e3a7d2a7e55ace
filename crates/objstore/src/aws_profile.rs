//! AWS profiles as the AWS CLI reads them: `~/.aws/credentials` and `~/.aws/config`
//! (or the files `AWS_SHARED_CREDENTIALS_FILE` and `AWS_CONFIG_FILE` name), INI files of
//! `key = value` lines in sections named `[NAME]` (credentials) or `[profile NAME]`
//! (config; `[default]` in both). A setting in the credentials file wins over the same in
//! the config file. Files larger than [`MAX_FILE`] are not read.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;

/// The largest profile file read; real ones are a few hundred bytes.
const MAX_FILE: u64 = 1 << 20;

/// The settings of one profile (`aws_access_key_id`, `region`, `endpoint_url`...), keys
/// in lower case.
pub type Profile = HashMap<String, String>;

/// The settings of the profile `name` from the user's files; empty when it is defined
/// nowhere.
pub fn load(name: &str) -> Profile {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let file = |variable: &str, default: &str| {
        std::env::var_os(variable)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws").join(default)))
    };
    let mut profile = Profile::new();
    if let Some(text) = file("AWS_CONFIG_FILE", "config").and_then(read_capped) {
        let section = if name == "default" {
            "default".to_string()
        } else {
            format!("profile {name}")
        };
        profile.extend(section_of(&text, &section));
    }
    if let Some(text) = file("AWS_SHARED_CREDENTIALS_FILE", "credentials").and_then(read_capped) {
        profile.extend(section_of(&text, name));
    }
    profile
}

/// The text of the file at `path`, when it exists and is at most [`MAX_FILE`] bytes.
fn read_capped(path: PathBuf) -> Option<String> {
    // A FIFO or a device there is skipped, never waited on.
    let file = kv::input_file::open_regular_file(&path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MAX_FILE {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The `key = value` settings of the section `[name]` of the INI text `text` (every
/// section of that name, later settings winning).
fn section_of(text: &str, name: &str) -> Profile {
    let mut settings = Profile::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let header = header.split_whitespace().collect::<Vec<_>>().join(" ");
            inside = header == name;
            continue;
        }
        if inside {
            if let Some((key, value)) = line.split_once('=') {
                settings.insert(key.trim().to_ascii_lowercase(), value.trim().to_string());
            }
        }
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_read_by_name() {
        let text = "[default]\naws_access_key_id = A\n# c\n[profile  p]\nregion=r\n\
                    AWS_SECRET_ACCESS_KEY = S\n[other]\nregion = x\n";
        assert_eq!(
            section_of(text, "default").get("aws_access_key_id"),
            Some(&"A".into())
        );
        let p = section_of(text, "profile p");
        assert_eq!(p.get("region"), Some(&"r".into()));
        assert_eq!(p.get("aws_secret_access_key"), Some(&"S".into()));
        assert!(section_of(text, "none").is_empty());
    }
}
