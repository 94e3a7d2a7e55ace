//! What one call of one of nctools' filters by HDF5 computes, in safe code: the output
//! of a chunk, in a buffer of the caller's kind (memory from the callback's allocator in
//! the real callback, see `crate::ffi`; a `Vec` in tests). Decoding is bounded by
//! `codecs::with_decoded_chunk_limit`: a chunk beyond the limit is a failure, found before the output is
//! allocated (sizes in headers) or one byte past the limit (streams).

use std::cell::Cell;

use codecs::callback_limit;
use codecs::wire::{self, Direction};

thread_local! {
    static IN_FILTER: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside one of nctools' filters called by HDF5: a panic there is
/// caught and becomes a filter error, so a panic hook should stay quiet.
pub fn in_filter_callback() -> bool {
    IN_FILTER.with(Cell::get)
}

/// Marks this thread as inside a filter callback until dropped (also by a panic).
pub(crate) struct InFilter {
    outer: bool,
}

impl InFilter {
    /// Marks this thread as inside a filter callback.
    pub(crate) fn enter() -> Self {
        Self {
            outer: IN_FILTER.with(|flag| flag.replace(true)),
        }
    }
}

impl Drop for InFilter {
    fn drop(&mut self) {
        IN_FILTER.with(|flag| flag.set(self.outer));
    }
}

/// The memory a filter's output goes into.
pub(crate) trait OutputBuffer: Sized {
    /// A buffer of `len` zero bytes (`len` > 0), or `None` when memory is short.
    fn zeroed(len: usize) -> Option<Self>;
    /// All the bytes of the buffer.
    fn bytes(&mut self) -> &mut [u8];
}

/// The result of one filter call.
pub(crate) struct Output<B> {
    /// The buffer, whose whole size HDF5 is told.
    pub(crate) buffer: B,
    /// How many of its first bytes are the result.
    pub(crate) len: usize,
}

/// One call of the built-in filter `id` on the chunk `input`, or `None` when it fails
/// (a corrupt chunk, a chunk that decodes beyond [`callback_limit`], short
/// memory, an empty result, which HDF5 would take for a failure).
pub(crate) fn run_filter<B: OutputBuffer>(
    id: u32,
    direction: Direction,
    params: &[u32],
    input: &[u8],
) -> Option<Output<B>> {
    let output = match direction {
        Direction::Decode => decode(id, input, decode_limit(id, params)),
        Direction::Encode => {
            // What would not be decoded is not encoded (red team s36 RE11: h5py wrote
            // 300 MB chunks through our plugins that they then refused to read, silently).
            let limit = callback_limit();
            if crate::host_memory::in_another_program() && input.len() > limit {
                crate::host_memory::say_once(
                    id,
                    &format!(
                        "refused to encode a chunk of {} bytes: it is larger than the {limit} \
                         bytes a chunk may decode to ({}=BYTES raises it, for writing and \
                         reading alike); choose smaller chunks",
                        input.len(),
                        codecs::partial::CHUNK_LIMIT_VARIABLE
                    ),
                );
                return None;
            }
            encode(id, params, input)
        }
    };
    output.filter(|o| o.len > 0)
}

/// Says why a chunk that would decode past `limit` is refused (once per process).
fn too_large(id: u32, limit: usize) {
    if crate::host_memory::in_another_program() {
        crate::host_memory::say_once(
            id,
            &format!(
                "refused a chunk that decodes past {limit} bytes, the most a chunk may decode \
                 to ({}=BYTES raises it, for a file you trust)",
                codecs::partial::CHUNK_LIMIT_VARIABLE
            ),
        );
    }
}

/// The most the filter `id` may decode a chunk to: [`callback_limit`], and no more than
/// the chunk's bytes its parameters record (blosc's, LZF's) with slack, so that a reader's
/// chunk cache, which counts a chunk at that size, is not filled with larger ones (a
/// 62 KB file of 4 blosc chunks took 1 GB through the reference ncdump).
fn decode_limit(id: u32, params: &[u32]) -> usize {
    let recorded = codecs::registry::codec_of_hdf5_id(id)
        .and_then(|c| c.recorded_chunk_bytes(params))
        .map_or(usize::MAX, codecs::with_slack);
    callback_limit().min(recorded)
}

/// Decodes a chunk to at most `limit` bytes; with a size in its header, straight into
/// the output buffer.
fn decode<B: OutputBuffer>(id: u32, input: &[u8], limit: usize) -> Option<Output<B>> {
    let may_take = |size| crate::host_memory::may_take(id, input.len(), size);
    if let Some(size) = wire::decoded_size(id, input) {
        if size > limit {
            too_large(id, limit);
            return None;
        }
        if size == 0 || !may_take(size) {
            return None;
        }
        let mut buffer = B::zeroed(size)?;
        wire::decode_into(id, input, buffer.bytes()).ok()?;
        return Some(Output { buffer, len: size });
    }
    if let Some(stream) = codecs::partial::Stream::of_hdf5_filter(id) {
        // Counted first, then decoded once into a buffer of its exact size: a growing
        // Vec copied into HDF5's buffer cost about three times the chunk.
        let size = match codecs::partial::stream_len(stream, input, limit) {
            Ok(size) => size,
            Err(e) => {
                if e.to_string().contains("decodes to more than") {
                    too_large(id, limit);
                }
                return None;
            }
        };
        if !may_take(size) {
            return None;
        }
        let mut buffer = B::zeroed(size.max(1))?;
        codecs::partial::decode_stream_into(stream, input, buffer.bytes().get_mut(..size)?).ok()?;
        return Some(Output { buffer, len: size });
    }
    let decoded = wire::decode(id, input, limit).ok()?;
    if !may_take(decoded.len()) {
        return None;
    }
    copied(&decoded)
}

/// Encodes a chunk; straight into the output buffer for the filters with a bound.
fn encode<B: OutputBuffer>(id: u32, params: &[u32], input: &[u8]) -> Option<Output<B>> {
    if let Some(bound) = wire::encoded_bound(id, params, input.len()) {
        let mut buffer = B::zeroed(bound.max(1))?;
        let len = wire::encode_into(id, params, input, buffer.bytes()).ok()?;
        return Some(Output { buffer, len });
    }
    copied(&wire::encode(id, params, input).ok()?)
}

/// `bytes` in a buffer of the caller's kind.
fn copied<B: OutputBuffer>(bytes: &[u8]) -> Option<Output<B>> {
    let mut buffer = B::zeroed(bytes.len().max(1))?;
    buffer
        .bytes()
        .get_mut(..bytes.len())?
        .copy_from_slice(bytes);
    Some(Output {
        buffer,
        len: bytes.len(),
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use codecs::wire::{BLOSC, BZIP2, LZ4, ZSTD};
    use codecs::with_decoded_chunk_limit;

    impl OutputBuffer for Vec<u8> {
        fn zeroed(len: usize) -> Option<Self> {
            Some(vec![0; len])
        }

        fn bytes(&mut self) -> &mut [u8] {
            self
        }
    }

    /// The result of a call, or `None` for a failure.
    fn call(id: u32, direction: Direction, params: &[u32], input: &[u8]) -> Option<Vec<u8>> {
        let mut output = run_filter::<Vec<u8>>(id, direction, params, input)?;
        output.buffer.truncate(output.len);
        Some(output.buffer)
    }

    fn unsized_zstd(data: &[u8]) -> std::io::Result<Vec<u8>> {
        let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 3)?;
        encoder.write_all(data)?;
        encoder.finish()
    }

    #[test]
    fn every_builtin_round_trips_through_a_call() {
        let data: Vec<u8> = (0..20_000u32).flat_map(|i| (i / 5).to_le_bytes()).collect();
        for (id, params) in [
            (BZIP2, vec![9]),
            (ZSTD, vec![3]),
            (LZ4, vec![]),
            (BLOSC, vec![2, 2, 4, 80_000, 5, 1, 1]),
        ] {
            let encoded = call(id, Direction::Encode, &params, &data);
            let encoded = encoded.unwrap_or_default();
            assert!(!encoded.is_empty() && encoded.len() < data.len(), "{id}");
            // Byte for byte what the pure encoder gives (and the plugins write).
            assert_eq!(wire::encode(id, &params, &data).ok(), Some(encoded.clone()));
            let decoded = with_decoded_chunk_limit(data.len(), || {
                call(id, Direction::Decode, &params, &encoded)
            });
            assert_eq!(decoded.as_ref(), Some(&data), "{id}");
        }
    }

    #[test]
    fn chunks_beyond_the_limit_and_its_slack_fail() -> std::io::Result<()> {
        let data = vec![5u8; 10_000];
        let blosc_params = [2, 2, 1, 10_000, 5, 1, 0];
        let chunks: [(u32, &[u32], Vec<u8>); 5] = [
            (
                BZIP2,
                &[],
                wire::encode(BZIP2, &[9], &data).unwrap_or_default(),
            ),
            (
                ZSTD,
                &[],
                wire::encode(ZSTD, &[3], &data).unwrap_or_default(),
            ),
            (ZSTD, &[], unsized_zstd(&data)?),
            (LZ4, &[], wire::encode(LZ4, &[], &data).unwrap_or_default()),
            (
                BLOSC,
                &blosc_params,
                wire::encode(BLOSC, &blosc_params, &data).unwrap_or_default(),
            ),
        ];
        for (id, params, chunk) in chunks {
            // With its slack, a limit of 5 000 allows 5 000 + 625 + 4 096 = 9 721 bytes
            // (too few), one of 5 400 allows 5 400 + 675 + 4 096 = 10 171 (enough).
            let decode = |limit| {
                with_decoded_chunk_limit(limit, || call(id, Direction::Decode, params, &chunk))
            };
            assert_eq!(decode(5_000), None, "{id}");
            assert_eq!(decode(5_400).as_ref(), Some(&data), "{id}");
            assert_eq!(decode(10_000).as_ref(), Some(&data), "{id}");
            // Without a limit, the chunk limit (256 MiB by default).
            assert_eq!(
                call(id, Direction::Decode, params, &chunk).as_ref(),
                Some(&data)
            );
        }
        // Blosc parameters recording no chunk size (which HDF5's set-local always
        // writes) allow no more than the slack (red team s31 H4).
        let blosc = wire::encode(BLOSC, &blosc_params, &data).unwrap_or_default();
        assert_eq!(call(BLOSC, Direction::Decode, &[2, 2, 1], &blosc), None);
        assert_eq!(
            call(BLOSC, Direction::Decode, &[2, 2, 1, 0, 5, 1, 0], &blosc),
            None
        );
        Ok(())
    }

    #[test]
    fn corrupt_chunks_fail() {
        for id in [BZIP2, ZSTD, LZ4, BLOSC] {
            assert_eq!(
                call(id, Direction::Decode, &[], b"not a chunk at all"),
                None
            );
        }
        assert_eq!(call(40_000, Direction::Encode, &[], b"data"), None);
    }

    #[test]
    fn the_marker_is_set_inside_and_restored_after_a_panic() {
        assert!(!in_filter_callback());
        let seen = Cell::new(false);
        let inside = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _marker = InFilter::enter();
            seen.set(in_filter_callback());
            panic!("inside a filter");
        }));
        assert!(inside.is_err());
        assert!(seen.get());
        assert!(!in_filter_callback());
    }
}
