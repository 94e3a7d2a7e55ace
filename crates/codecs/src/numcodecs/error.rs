//! The one error of the numcodecs codecs that have no HDF5 filter.

/// Why a codec with no HDF5 filter could not be configured, encode or decode.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// The codec's JSON configuration is not one it accepts.
    #[error("codec {codec}: {message}")]
    BadConfig {
        /// The numcodecs id.
        codec: &'static str,
        /// What is wrong with the configuration.
        message: String,
    },
    /// The chunk's bytes are not what the codec writes (truncated, bad checksum).
    #[error("codec {codec}: corrupt chunk: {what}")]
    Corrupt {
        /// The numcodecs id.
        codec: &'static str,
        /// What is wrong.
        what: String,
    },
    /// The chunk would decode to more than the caller accepts.
    #[error("codec {codec}: the chunk decodes to more than {limit} bytes")]
    TooLarge {
        /// The numcodecs id.
        codec: &'static str,
        /// The most the caller accepted, in bytes.
        limit: usize,
    },
    /// The codec is lossy and nctools only decodes it.
    #[error(
        "codec {0} is lossy: nctools decodes it but does not encode it (write the variable \
         without it)"
    )]
    DecodeOnly(&'static str),
}

impl CodecError {
    /// A configuration error of `codec`.
    pub(crate) fn config(codec: &'static str, message: impl Into<String>) -> Self {
        Self::BadConfig {
            codec,
            message: message.into(),
        }
    }

    /// A corrupt chunk of `codec`.
    pub(crate) fn corrupt(codec: &'static str, what: impl Into<String>) -> Self {
        Self::Corrupt {
            codec,
            what: what.into(),
        }
    }
}
