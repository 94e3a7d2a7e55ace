//! The `object_store` client of a remote root: its service, endpoint, region and
//! credentials from the URL, the environment and (for S3) the AWS profile; retries and
//! time limits set once for all.

use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::MicrosoftAzureBuilder;
use object_store::client::{HttpClient, HttpConnector};
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::http::HttpBuilder;
use object_store::list::PaginatedListStore;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, RetryConfig};
use store::{RemoteRoot, RemoteService};

use crate::aws_profile;

/// A client and the prefix of the store's keys in it.
pub struct Built {
    /// The client.
    pub store: Arc<dyn ObjectStore>,
    /// The same client's page-by-page listing, where the service has one (S3, Google
    /// Cloud Storage), so that a listing can be stopped at a bound.
    pub pager: Option<Arc<dyn PaginatedListStore>>,
    /// The store's root inside it (`a/b.zarr`; empty for the bucket's top).
    pub prefix: String,
    /// Whether its requests are not signed (anonymous access).
    pub anonymous: bool,
}

/// How failed requests are retried: a connection refused or reset, a time-out, or a
/// server error (5xx, 429) is tried again up to [`MAX_RETRIES`] times, waiting 0.1 s,
/// then twice as long each time (at most 2 s), and never after [`RETRY_WINDOW`].
pub const MAX_RETRIES: usize = 4;

/// How long a request is retried at most.
pub const RETRY_WINDOW: Duration = Duration::from_secs(15);

fn retry() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: MAX_RETRIES,
        retry_timeout: RETRY_WINDOW,
    }
}

/// The most redirects followed for one request.
const MAX_REDIRECTS: usize = 5;

/// The HTTP client of every store: reqwest's, following a redirect only to the same
/// origin (scheme, host and port) as the request it answers. A signed request carries
/// its credentials in headers (`Authorization`, `x-amz-security-token`) that reqwest
/// would send on to any host a server names; a redirect elsewhere is not followed and
/// its 3xx answer is the request's failure.
#[derive(Debug, Default)]
struct SameOriginConnector {}

impl HttpConnector for SameOriginConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let policy = reqwest::redirect::Policy::custom(|attempt| {
            let same_origin = attempt
                .previous()
                .last()
                .is_some_and(|from| from.origin() == attempt.url().origin());
            if attempt.previous().len() > MAX_REDIRECTS || !same_origin {
                attempt.stop()
            } else {
                attempt.follow()
            }
        });
        let allow_http = options
            .get_config_value(&object_store::ClientConfigKey::AllowHttp)
            .is_some_and(|v| v == "true");
        // object_store's own defaults: a request ends after 30 s, a connection attempt
        // after 5 s.
        let client = reqwest::Client::builder()
            .redirect(policy)
            .timeout(Duration::from_secs(30))
            .connect_timeout(Duration::from_secs(5))
            .no_gzip()
            .no_brotli()
            .no_zstd()
            .no_deflate()
            .https_only(!allow_http)
            .build()
            .map_err(|e| object_store::Error::Generic {
                store: "HTTP",
                source: Box::new(e),
            })?;
        Ok(HttpClient::new(crate::capped_http::CappedClient(client)))
    }
}

/// The client of `remote`.
pub fn build(remote: &RemoteRoot) -> Result<Built, String> {
    // HTTPS through rustls with ring's cryptography; an error only says that a provider
    // is installed already.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let plain_http = remote
        .endpoint
        .as_deref()
        .is_some_and(|e| e.starts_with("http://"));
    let options = ClientOptions::new().with_allow_http(plain_http || env_endpoint_is_http());
    let mut anonymous = false;
    let pager: Option<Arc<dyn PaginatedListStore>>;
    let store: Arc<dyn ObjectStore> = match remote.service {
        RemoteService::S3 => {
            let (builder, unsigned) = s3(remote, options)?;
            anonymous = unsigned;
            let client = Arc::new(builder.build().map_err(|e| e.to_string())?);
            pager = Some(Arc::clone(&client) as Arc<dyn PaginatedListStore>);
            client
        }
        RemoteService::Gcs => {
            let mut builder = GoogleCloudStorageBuilder::from_env()
                .with_http_connector(SameOriginConnector::default())
                .with_bucket_name(&remote.bucket)
                .with_client_options(options)
                .with_retry(retry());
            for (key, value) in crate::url_options::gcs(&remote.options)? {
                builder = builder.with_config(key, value);
            }
            let client = Arc::new(builder.build().map_err(|e| e.to_string())?);
            pager = Some(Arc::clone(&client) as Arc<dyn PaginatedListStore>);
            client
        }
        RemoteService::Azure => {
            let mut builder = MicrosoftAzureBuilder::from_env()
                .with_http_connector(SameOriginConnector::default())
                .with_container_name(&remote.bucket)
                .with_client_options(options)
                .with_retry(retry());
            for (key, value) in crate::url_options::azure(&remote.options)? {
                builder = builder.with_config(key, value);
            }
            let client = Arc::new(builder.build().map_err(|e| e.to_string())?);
            // Page by page, so that a listing stops at its bounds whatever the server
            // answers (red team s35 RA10: without it, Azure listings followed markers
            // without end, 1.84 GB after 200 s).
            pager = Some(Arc::clone(&client) as Arc<dyn PaginatedListStore>);
            client
        }
        RemoteService::Http => {
            return Ok(Built {
                store: Arc::new(
                    HttpBuilder::new()
                        .with_http_connector(SameOriginConnector::default())
                        // The server alone: the path is the keys' prefix, which the
                        // client encodes segment by segment (`a b` as `a%20b`, `a?b` as
                        // `a%3Fb`), as it does every key.
                        .with_url(remote.endpoint.clone().unwrap_or_default())
                        .with_client_options(options)
                        .with_retry(retry())
                        .build()
                        .map_err(|e| e.to_string())?,
                ),
                pager: None,
                prefix: remote.prefix.clone(),
                anonymous: true,
            });
        }
    };
    Ok(Built {
        store,
        pager,
        prefix: remote.prefix.clone(),
        anonymous,
    })
}

/// Whether the environment names a plain-HTTP S3 endpoint (a local test server).
fn env_endpoint_is_http() -> bool {
    ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .any(|e| e.starts_with("http://"))
}

/// Whether the environment variable `name` is set and not empty.
fn env_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

/// Whether the environment variable `name` says yes (`true`, `1`, `yes`).
fn env_true(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| {
        ["true", "1", "yes", "on"]
            .iter()
            .any(|t| v.trim().eq_ignore_ascii_case(t))
    })
}

/// Whether credentials may go to the server `endpoint` a URL names: Amazon S3's own (its
/// S3 host names under `amazonaws.com` or `amazonaws.com.cn`, over HTTPS; not any host
/// under those domains, where API gateways and load balancers belong to anyone), or one
/// of the endpoints the user configured (`configured`: the environment's and the
/// profile's), compared by origin (scheme, host and port, as the redirect policy compares
/// them).
fn trusted_for_credentials(endpoint: &str, configured: &[String]) -> bool {
    let Ok(theirs) = reqwest::Url::parse(endpoint.trim()) else {
        return false;
    };
    let amazon =
        theirs.scheme() == "https" && theirs.host_str().is_some_and(store::is_amazon_s3_host);
    amazon
        || configured
            .iter()
            .any(|c| reqwest::Url::parse(c.trim()).is_ok_and(|c| c.origin() == theirs.origin()))
}

/// The S3 client's settings, in the AWS CLI's order: the URL's host and region, then the
/// environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
/// `AWS_REGION`, `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`), then
/// the profile (the URL's `aws.profile`, else `AWS_PROFILE`, else `default`). Without
/// credentials anywhere, or with `AWS_NO_SIGN_REQUEST=true` or netCDF-C's profile `no`,
/// requests are not signed (anonymous access to public buckets): the second value says
/// so.
fn s3(remote: &RemoteRoot, options: ClientOptions) -> Result<(AmazonS3Builder, bool), String> {
    let profile_name = remote
        .profile
        .clone()
        .or_else(|| std::env::var("AWS_PROFILE").ok().filter(|p| !p.is_empty()))
        .unwrap_or_else(|| "default".to_string());
    store::check_profile(&profile_name)?;
    let profile = aws_profile::load(&profile_name);
    let setting = |key: &str| profile.get(key).filter(|v| !v.is_empty()).cloned();
    let mut builder = AmazonS3Builder::from_env()
        .with_http_connector(SameOriginConnector::default())
        .with_bucket_name(&remote.bucket)
        .with_client_options(options)
        .with_retry(retry());
    let env_keys = env_set("AWS_ACCESS_KEY_ID") && env_set("AWS_SECRET_ACCESS_KEY");
    let mut has_credentials = env_keys
        || env_set("AWS_WEB_IDENTITY_TOKEN_FILE")
        || env_set("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
        || env_set("AWS_CONTAINER_CREDENTIALS_FULL_URI");
    if !env_keys {
        if let (Some(id), Some(secret)) = (
            setting("aws_access_key_id"),
            setting("aws_secret_access_key"),
        ) {
            builder = builder
                .with_access_key_id(id)
                .with_secret_access_key(secret);
            if let Some(token) = setting("aws_session_token") {
                builder = builder.with_token(token);
            }
            has_credentials = true;
        }
    }
    // A URL never chooses where credentials go: a server the URL names (netCDF-C's
    // `https://HOST/BUCKET/KEY#mode=...,s3`) gets signed requests only when it is
    // Amazon's or the endpoint the environment or the profile names; any other is asked
    // without credentials.
    let url_server_untrusted = remote.endpoint.as_deref().is_some_and(|endpoint| {
        let configured: Vec<String> = ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"]
            .iter()
            .filter_map(|v| std::env::var(v).ok())
            .chain(setting("endpoint_url"))
            .collect();
        !trusted_for_credentials(endpoint, &configured)
    });
    let anonymous = env_true("AWS_NO_SIGN_REQUEST")
        || profile_name == "no"
        || !has_credentials
        || url_server_untrusted;
    if anonymous {
        builder = builder.with_skip_signature(true);
    }
    // A region becomes part of the host name: wherever it comes from, it is checked
    // here again, where the client is built.
    let region = match &remote.region {
        Some(region) => region.clone(),
        None => ["AWS_REGION", "AWS_DEFAULT_REGION"]
            .iter()
            .filter_map(|v| std::env::var(v).ok())
            .find(|v| !v.is_empty())
            .or_else(|| setting("region"))
            .or_else(|| setting("aws_region"))
            .unwrap_or_else(|| "us-east-1".to_string()),
    };
    store::check_region(&region)?;
    builder = builder.with_region(region);
    let endpoint = remote.endpoint.clone().or_else(|| {
        if env_set("AWS_ENDPOINT_URL_S3") || env_set("AWS_ENDPOINT_URL") || env_set("AWS_ENDPOINT")
        {
            None
        } else {
            setting("endpoint_url")
        }
    });
    if let Some(endpoint) = endpoint {
        // The URL's (or the profile's) server replaces any the environment names.
        let plain_http = endpoint.starts_with("http://");
        builder = builder
            .with_endpoint(&endpoint)
            .with_config(AmazonS3ConfigKey::S3Endpoint, &endpoint);
        if plain_http {
            builder = builder.with_allow_http(true);
        }
    }
    let mut skip_signature = anonymous;
    for (key, value) in crate::url_options::s3(&remote.options)? {
        skip_signature |= key == AmazonS3ConfigKey::SkipSignature && value == "true";
        builder = builder.with_config(key, value);
    }
    Ok((builder, skip_signature))
}

#[cfg(test)]
mod trust_tests {
    use super::*;

    #[test]
    fn credentials_go_only_to_amazon_or_a_configured_endpoint() {
        let configured = vec!["http://127.0.0.1:9000/".to_string()];
        assert!(trusted_for_credentials(
            "https://s3.eu-west-1.amazonaws.com",
            &[]
        ));
        assert!(trusted_for_credentials(
            "https://bkt.s3.amazonaws.com:443/",
            &[]
        ));
        assert!(trusted_for_credentials(
            "http://127.0.0.1:9000",
            &configured
        ));
        assert!(!trusted_for_credentials(
            "http://127.0.0.1:9001",
            &configured
        ));
        assert!(!trusted_for_credentials(
            "https://evil.example/amazonaws.com",
            &[]
        ));
        assert!(!trusted_for_credentials(
            "https://amazonaws.com.evil.example",
            &[]
        ));
        assert!(!trusted_for_credentials("http://s3.amazonaws.com", &[]));
        // Before: every host under amazonaws.com.cn was trusted (red team s30 H3).
        assert!(!trusted_for_credentials(
            "https://abcd123.execute-api.cn-north-1.amazonaws.com.cn",
            &[]
        ));
        assert!(!trusted_for_credentials("https://x.elb.amazonaws.com", &[]));
        assert!(trusted_for_credentials(
            "https://bkt.s3.cn-north-1.amazonaws.com.cn",
            &[]
        ));
        assert!(!trusted_for_credentials("https://x@evil.example", &[]));
    }
}
