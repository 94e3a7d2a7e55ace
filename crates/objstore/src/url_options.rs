//! The client settings a URL's fragment may carry (`s3://b/x.zarr#mode=zarr&aws.skip_signature=true`):
//! those that change neither where requests go nor which credentials they carry. A
//! setting of the service's client that would (an endpoint, a proxy, plain HTTP, keys,
//! tokens, a metadata or role endpoint) is refused: a URL never chooses where credentials
//! go, and those come from the environment or the profile. What is no setting of the
//! client (netCDF-C's own `log`, `show=fetch`) is left alone, as netCDF-C leaves it.

use std::str::FromStr;

use object_store::aws::AmazonS3ConfigKey;
use object_store::azure::AzureConfigKey;
use object_store::gcp::GoogleConfigKey;

/// What an S3 URL may set (as `object_store` names them, with or without `aws_`).
const S3_ALLOWED: &str = "skip_signature, unsigned_payload, checksum_algorithm, \
                          request_payer, disable_tagging";

/// What a Google Cloud Storage URL may set.
const GCS_ALLOWED: &str = "skip_signature";

/// What an Azure URL may set.
const AZURE_ALLOWED: &str = "skip_signature, disable_tagging";

/// Whether an S3 URL may set `key`.
fn s3_allows(key: &AmazonS3ConfigKey) -> bool {
    use AmazonS3ConfigKey as K;
    matches!(
        key,
        K::SkipSignature | K::UnsignedPayload | K::Checksum | K::RequestPayer | K::DisableTagging
    )
}

/// Whether a Google Cloud Storage URL may set `key`.
fn gcs_allows(key: &GoogleConfigKey) -> bool {
    matches!(key, GoogleConfigKey::SkipSignature)
}

/// Whether an Azure URL may set `key`.
fn azure_allows(key: &AzureConfigKey) -> bool {
    matches!(
        key,
        AzureConfigKey::SkipSignature | AzureConfigKey::DisableTagging
    )
}

/// The settings of `options` that are keys of the client (`K`), each allowed by `allows`;
/// the first that is a key but not allowed is refused, naming what is (`allowed`).
fn settings<K: FromStr>(
    options: &[(String, String)],
    allows: fn(&K) -> bool,
    allowed: &str,
) -> Result<Vec<(K, String)>, String> {
    let mut taken = Vec::new();
    for (name, value) in options {
        let Ok(key) = K::from_str(name) else {
            continue;
        };
        if !allows(&key) {
            return Err(format!(
                "the URL sets `{}`, a setting that would choose where requests go or which \
                 credentials they carry; a URL may set only {allowed}: set the others in the \
                 environment or the profile",
                store::escape_for_message(name)
            ));
        }
        taken.push((key, value.clone()));
    }
    Ok(taken)
}

/// The S3 settings of a URL's `options`.
pub(crate) fn s3(options: &[(String, String)]) -> Result<Vec<(AmazonS3ConfigKey, String)>, String> {
    settings(options, s3_allows, S3_ALLOWED)
}

/// The Google Cloud Storage settings of a URL's `options`.
pub(crate) fn gcs(options: &[(String, String)]) -> Result<Vec<(GoogleConfigKey, String)>, String> {
    settings(options, gcs_allows, GCS_ALLOWED)
}

/// The Azure settings of a URL's `options`.
pub(crate) fn azure(options: &[(String, String)]) -> Result<Vec<(AzureConfigKey, String)>, String> {
    settings(options, azure_allows, AZURE_ALLOWED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &[(&str, &str)]) -> Vec<(String, String)> {
        text.iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    #[test]
    fn a_url_sets_only_what_leaves_requests_and_credentials_where_they_are() {
        let taken = s3(&pairs(&[
            ("aws_skip_signature", "true"),
            ("request_payer", "true"),
            ("log", ""),
            ("show", "fetch"),
        ]));
        assert_eq!(taken.map(|t| t.len()), Ok(2));
        for refused in [
            "aws_endpoint",
            "endpoint",
            "aws_endpoint_url_s3",
            "aws_access_key_id",
            "aws_session_token",
            "token",
            "aws_metadata_endpoint",
            "aws_container_credentials_full_uri",
            "aws_virtual_hosted_style_request",
            "allow_http",
            "proxy_url",
            "aws_endpoint_url_sts",
            "aws_allow_http",
        ] {
            let result = s3(&pairs(&[(refused, "http://attacker.example")]));
            assert!(result.is_err(), "{refused}");
        }
        assert_eq!(
            gcs(&pairs(&[("google_skip_signature", "true")])).map(|t| t.len()),
            Ok(1)
        );
        assert!(gcs(&pairs(&[("google_service_account", "/etc/x")])).is_err());
        assert_eq!(
            azure(&pairs(&[("azure_skip_signature", "true")])).map(|t| t.len()),
            Ok(1)
        );
        assert!(azure(&pairs(&[("azure_storage_endpoint", "http://x")])).is_err());
    }
}
