//! ncgen's input: a CDL file read twice (header, then each data entry), or standard
//! input (or a pipe) spooled to a temporary file so that it can be read twice too.

use std::fs::File;
use std::io::{self, BufReader, Seek, SeekFrom};
use std::path::PathBuf;

use anyhow::{anyhow, Context};
use cdl::parse::{CdlHeader, DataEntry, DataReader, Dialect, ParseError};

/// Whether `path` names a device or a socket itself (`/dev/zero`, `/dev/urandom`),
/// which never ends as a CDL file does: refused. Pipes are read, and so is the standard
/// input under any of its names (`/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`), a
/// terminal included.
fn is_device_by_name(path: &str, meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    let device = kind.is_char_device() || kind.is_block_device() || kind.is_socket();
    let standard_stream =
        path == "/dev/stdin" || path.starts_with("/dev/fd/") || path.starts_with("/proc/self/fd/");
    device && !standard_stream
}

/// Read buffer of the data pass: large, as data sections can be gigabytes.
const DATA_BUFFER: usize = 1 << 20;

/// The environment variable that sets [`spool_limit`], in bytes (or with a `K`, `M` or
/// `G` suffix, powers of 1024).
pub const SPOOL_LIMIT_VARIABLE: &str = settings::CDL_SPOOL_LIMIT;

/// The default of [`spool_limit`]: 4 GiB. A CDL file named on the command line is read
/// where it is, whatever its size; only a stream is copied.
pub const DEFAULT_SPOOL_LIMIT: u64 = 4 << 30;

/// The most bytes of CDL a stream (standard input, a pipe, a shell's `<(...)`) may hold:
/// it is copied into `$TMPDIR` to be read twice, and a producer that never ends would
/// fill the disk. `NCTOOLS_CDL_SPOOL_LIMIT`, else [`DEFAULT_SPOOL_LIMIT`]; a value that
/// does not parse is ignored.
pub fn spool_limit() -> u64 {
    settings::cdl_spool_limit().map_or(DEFAULT_SPOOL_LIMIT, |bytes| bytes as u64)
}

/// A CDL source that can be read from the start or from any data entry.
pub struct CdlInput {
    /// Where the text is.
    path: PathBuf,
    /// The name used in messages (`-` reads as `stdin`).
    name: String,
    /// Keeps a spooled standard input alive (and removes it at the end).
    _spool: Option<(tempfile::NamedTempFile, cleanup::Registration)>,
}

impl CdlInput {
    /// Opens the CDL file `path`, or standard input when it is `None` or `-`. Standard
    /// input and other streams that cannot be read twice (pipes, `/dev/stdin`, a shell's
    /// `<(...)`) are spooled to a temporary file first.
    pub fn open(path: Option<&str>) -> anyhow::Result<Self> {
        match path {
            None | Some("-") => Self::spooled(&mut io::stdin().lock(), "stdin"),
            Some(p) => {
                let meta = std::fs::metadata(p).map_err(|e| match e.kind() {
                    io::ErrorKind::NotFound => anyhow!("{p}: no such file"),
                    _ => anyhow!("{p}: cannot read: {e}"),
                })?;
                if meta.is_file() || meta.is_dir() {
                    let kind = crate::storage::input_kind::identify(std::path::Path::new(p));
                    if let Some(problem) = crate::storage::input_kind::not_cdl(p, &kind) {
                        return Err(anyhow!(problem));
                    }
                }
                if is_device_by_name(p, &meta) {
                    return Err(anyhow!(
                        "{p}: is a device, not a CDL file; give ncgen a file, a pipe or its \
                         standard input"
                    ));
                }
                if !meta.is_file() {
                    let mut stream = File::open(p).with_context(|| format!("{p}: cannot read"))?;
                    return Self::spooled(&mut stream, p);
                }
                Ok(Self {
                    path: PathBuf::from(p),
                    name: p.to_string(),
                    _spool: None,
                })
            }
        }
    }

    /// The whole of `stream` in a temporary file, named `name` in messages; refused (and
    /// the temporary file removed) past [`spool_limit`] bytes.
    fn spooled(stream: &mut impl io::Read, name: &str) -> anyhow::Result<Self> {
        let mut spool = tempfile::NamedTempFile::new()
            .with_context(|| format!("creating a temporary file for {name}"))?;
        // Removed by a second signal or a crash as well as when dropped.
        let registration = cleanup::register_scratch(spool.path());
        let limit = spool_limit();
        // One byte past the limit tells a stream that holds more from one that ends there.
        let copied = io::copy(
            &mut io::Read::take(&mut *stream, limit.saturating_add(1)),
            spool.as_file_mut(),
        )
        .with_context(|| format!("reading {name}"))?;
        if copied > limit {
            // `spool` and its registration are dropped here: the copy is removed.
            return Err(anyhow!(
                "{name}: the CDL read from a stream holds more than {limit} bytes, the most \
                 ncgen copies into a temporary file ({SPOOL_LIMIT_VARIABLE}); name the CDL \
                 file instead, or set {SPOOL_LIMIT_VARIABLE}"
            ));
        }
        Ok(Self {
            path: spool.path().to_path_buf(),
            name: name.to_string(),
            _spool: Some((spool, registration)),
        })
    }

    /// The name used in messages: the path, or `stdin`.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn reader(&self) -> anyhow::Result<File> {
        // A regular file (or the spool), read twice: if it was swapped for a FIFO in
        // between, it is refused instead of waited on.
        kv::input_file::open_regular_file(&self.path)
            .with_context(|| format!("{}: cannot read", self.name))
    }

    /// Parses everything but the data values, with the type names `dialect` reserves.
    pub fn parse_header(&self, dialect: Dialect) -> anyhow::Result<CdlHeader> {
        let reader = BufReader::with_capacity(DATA_BUFFER, self.reader()?);
        cdl::parse::parse_header_as(reader, &self.name, dialect).map_err(|e| self.explain(&e))
    }

    /// A reader of one data entry's values.
    pub fn data_reader(&self, entry: &DataEntry) -> anyhow::Result<DataReader<BufReader<File>>> {
        let mut file = self.reader()?;
        file.seek(SeekFrom::Start(entry.offset))
            .with_context(|| format!("{}: cannot read", self.name))?;
        let reader = BufReader::with_capacity(DATA_BUFFER, file);
        Ok(DataReader::for_entry(reader, &self.name, entry))
    }

    /// A parse error rendered with the line it points at.
    pub fn explain(&self, error: &ParseError) -> anyhow::Error {
        anyhow!("{}", error.render())
    }
}
