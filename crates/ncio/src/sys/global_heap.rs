//! The global heap of an HDF5 file, read by nctools itself to check variable-length
//! values before HDF5 reads them.
//!
//! A stored variable-length value (a `string`, a vlen) is its length and a reference to
//! an object of a global heap collection. libhdf5 1.10 copies the whole object into a
//! buffer sized from the stored length: an object larger than its length writes past the
//! buffer (a 1 MB file crashed the tools and the reference with SIGSEGV; a 106 KB one
//! with a heap corruption abort). HDF5 2.0 refuses such a value ("Expected global heap
//! object size does not match"); nctools refuses it before libhdf5 reads it, and so a
//! reference to an object that does not exist, or whose bytes run past its collection,
//! or a collection that runs past the file or that HDF5 would walk for ever (a free-space
//! object of no size).
//!
//! The layout (the HDF5 file format, "Global Heap"): a collection is `GCOL`, a version
//! byte (1), three reserved bytes and its size (the file's length size) including this
//! header; then objects, each a 2-byte index, a 2-byte reference count, 4 reserved
//! bytes, its size (the length size) and its bytes padded to a multiple of 8. Index 0
//! is free space, whose size covers its own header. Objects are walked as libhdf5 walks
//! them (`H5HG__cache_heap_deserialize`): a later object of the same index replaces an
//! earlier one, and a tail too short for an object header is free space.

use std::collections::BTreeMap;

/// A variable-length value's stored form, as nctools' conversion hands it over: what
/// its heap object must hold, and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct HeapReference {
    /// The collection's address (relative to the file's base address; 0 for a value
    /// with no heap object).
    pub(super) address: u64,
    /// The object's index in the collection (0 for an index that cannot name one).
    pub(super) index: u16,
    /// The bytes its object must hold: the stored length times the size of one
    /// element of the sequence (one byte for a string).
    pub(super) bytes: u64,
}

/// Reads bytes of the file at an offset: the file itself, or bytes in a test.
pub(super) trait ReadAt {
    /// Fills `buffer` from `offset`, or fails (a short read is an error).
    fn read_exact_at(&self, buffer: &mut [u8], offset: u64) -> std::io::Result<()>;
    /// The file's length in bytes.
    fn length(&self) -> std::io::Result<u64>;
    /// The bytes the file really stores (a sparse file's holes store nothing).
    fn stored(&self) -> std::io::Result<u64> {
        self.length()
    }
}

impl ReadAt for std::fs::File {
    fn read_exact_at(&self, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buffer, offset)
    }
    fn length(&self) -> std::io::Result<u64> {
        Ok(self.metadata()?.len())
    }
    fn stored(&self) -> std::io::Result<u64> {
        use std::os::unix::fs::MetadataExt;
        Ok(self.metadata()?.blocks().saturating_mul(512))
    }
}

/// Room beyond what a file stores for one heap collection.
const STORED_SLACK: u64 = 1 << 20;

/// The shape of a file's heap: where its addresses start, and how long its lengths are.
#[derive(Debug, Clone, Copy)]
pub(super) struct HeapLayout {
    /// The file offset addresses are relative to (the user block's size).
    pub(super) base: u64,
    /// The bytes of a length (`sizeof_size`: 2, 4 or 8).
    pub(super) length_size: usize,
    /// The bytes of an address (`sizeof_addr`: 2, 4 or 8).
    pub(super) address_size: usize,
}

/// The size of a collection's header: signature, version, reserved, size, rounded up
/// to 8 bytes as libhdf5's `H5HG_SIZEOF_HDR` is (16 whatever the size of lengths; before,
/// 4-byte lengths were walked from byte 12, and padding steered the walk).
const fn collection_header(length_size: usize) -> usize {
    (8 + length_size).next_multiple_of(8)
}

/// The size of an object's header: index, references, reserved, size, rounded up to 8
/// bytes as libhdf5's `H5HG_SIZEOF_OBJHDR` is.
const fn object_header(length_size: usize) -> usize {
    (8 + length_size).next_multiple_of(8)
}

/// Bytes read at once while walking a collection.
const WINDOW: usize = 64 * 1024;

/// Checks every reference of `references` against the heap of `file`: each must name an
/// object that exists, lies within its collection, and holds exactly the bytes its
/// length says (a reference with no heap object must have length 0). The references are
/// sorted and deduplicated here; each collection is walked once. `Err` says what is
/// wrong, for a refusal.
pub(super) fn check_references(
    file: &dyn ReadAt,
    layout: HeapLayout,
    references: &mut Vec<HeapReference>,
) -> Result<(), String> {
    references.sort_unstable();
    references.dedup();
    let file_length = file
        .length()
        .map_err(|e| format!("cannot read the file's length: {e}"))?;
    let mut rest: &[HeapReference] = references;
    while let Some(first) = rest.first() {
        let address = first.address;
        let split = rest
            .iter()
            .position(|r| r.address != address)
            .unwrap_or(rest.len());
        let (group, after) = rest.split_at(split);
        rest = after;
        if address == 0 {
            if let Some(r) = group.iter().find(|r| r.bytes != 0) {
                return Err(format!(
                    "a variable-length value of {} bytes has no heap object",
                    r.bytes
                ));
            }
            continue;
        }
        let objects = walk_collection(file, layout, address, file_length, group)?;
        for r in group {
            match objects.get(&r.index) {
                _ if r.index == 0 => {
                    return Err(format!(
                        "a variable-length value names no object of the heap collection at \
                         {address}"
                    ))
                }
                None => {
                    return Err(format!(
                        "a variable-length value names object {} of the heap collection at \
                         {address}, which has no such object",
                        r.index
                    ))
                }
                Some(Object::PastEnd) => {
                    return Err(format!(
                        "object {} of the heap collection at {address} runs past the \
                         collection",
                        r.index
                    ))
                }
                Some(Object::Holds { bytes: size, .. }) if *size != r.bytes => {
                    return Err(format!(
                        "the stored length of a variable-length value makes {} bytes, but \
                         the heap object it names (object {} at {address}) holds {size} \
                         (libhdf5 1.10 would write past its buffer)",
                        r.bytes, r.index
                    ))
                }
                Some(Object::Holds { .. }) => {}
            }
        }
    }
    Ok(())
}

/// The bytes of the heap objects `references` name, in their order; each must exist and
/// hold what its reference says, all together at most `max` bytes; `Err` says what is
/// wrong. Each collection is walked once (s33c NM2: once per reference took minutes).
pub(super) fn objects_bytes(
    file: &dyn ReadAt,
    layout: HeapLayout,
    references: &[HeapReference],
    max: u64,
) -> Result<Vec<Vec<u8>>, String> {
    let file_length = file
        .length()
        .map_err(|e| format!("cannot read the file's length: {e}"))?;
    let total = references
        .iter()
        .fold(0u64, |n, r| n.saturating_add(r.bytes));
    if total > max {
        return Err(format!(
            "variable-length values of {total} bytes, more than {max} where they are read"
        ));
    }
    let mut by_collection: BTreeMap<u64, Vec<HeapReference>> = BTreeMap::new();
    for r in references {
        by_collection.entry(r.address).or_default().push(*r);
    }
    let mut places: BTreeMap<(u64, u16), (u64, u64)> = BTreeMap::new();
    for (address, mut wanted) in by_collection {
        wanted.sort_unstable();
        for (index, object) in walk_collection(file, layout, address, file_length, &wanted)? {
            if let Object::Holds { bytes, at } = object {
                places.insert((address, index), (bytes, at));
            }
        }
    }
    references
        .iter()
        .map(|r| match places.get(&(r.address, r.index)) {
            Some((bytes, at)) if *bytes == r.bytes => {
                let mut data = vec![0u8; usize::try_from(*bytes).map_err(|e| e.to_string())?];
                file.read_exact_at(&mut data, *at)
                    .map_err(|e| format!("cannot read the file at {at}: {e}"))?;
                Ok(data)
            }
            _ => Err(format!(
                "a variable-length value names object {} of the heap collection at {}, \
                 which does not hold it",
                r.index, r.address
            )),
        })
        .collect()
}

/// What the walk found of one wanted object.
#[derive(Debug, Clone, Copy)]
enum Object {
    /// It holds `bytes` bytes, from `at` in the file, within its collection.
    Holds { bytes: u64, at: u64 },
    /// Its bytes run past its collection.
    PastEnd,
}

/// Walks the collection at `address` once, recording the objects `wanted` names.
fn walk_collection(
    file: &dyn ReadAt,
    layout: HeapLayout,
    address: u64,
    file_length: u64,
    wanted: &[HeapReference],
) -> Result<BTreeMap<u16, Object>, String> {
    let length_size = layout.length_size;
    if !matches!(length_size, 2 | 4 | 8) {
        return Err(format!("the file's lengths are {length_size} bytes"));
    }
    let start = layout
        .base
        .checked_add(address)
        .filter(|s| *s < file_length)
        .ok_or_else(|| format!("the heap collection at {address} is beyond the file"))?;
    let mut header = vec![0u8; collection_header(length_size)];
    file.read_exact_at(&mut header, start)
        .map_err(|_| format!("the heap collection at {address} is beyond the file"))?;
    if &header[..4] != b"GCOL" || header[4] != 1 {
        return Err(format!("there is no heap collection at {address}"));
    }
    let size = read_length(&header[8..], length_size);
    let header_size = collection_header(length_size) as u64;
    let stored = file
        .stored()
        .map_err(|e| format!("cannot read the file's size: {e}"))?;
    // libhdf5 loads a whole collection at its stated size (before, a sparse file of 8 KB
    // stored stating 1e9 bytes took 3.4 GB).
    if size < header_size
        || start.checked_add(size).is_none_or(|end| end > file_length)
        || size > stored.saturating_add(STORED_SLACK)
    {
        return Err(format!(
            "the heap collection at {address} says {size} bytes, which the file does not hold"
        ));
    }
    let object_size = object_header(length_size) as u64;
    let mut window = Window::new(file, start, size);
    let mut found = BTreeMap::new();
    let mut position = header_size;
    while position < size {
        if position + object_size > size {
            break;
        }
        let head = window.read(position, object_size as usize)?;
        let index = u16::from_le_bytes([head[0], head[1]]);
        let bytes = read_length(&head[8..], length_size);
        let advance = if index == 0 {
            bytes
        } else {
            let padded = bytes.checked_add(7).map(|b| b & !7);
            let object = match padded.and_then(|p| position.checked_add(object_size + p)) {
                Some(end) if end <= size => Object::Holds {
                    bytes,
                    at: start + position + object_size,
                },
                _ => Object::PastEnd,
            };
            if wanted.binary_search_by(|r| r.index.cmp(&index)).is_ok() {
                found.insert(index, object);
            }
            padded.map_or(u64::MAX, |p| p.saturating_add(object_size))
        };
        if advance == 0 {
            // libhdf5 would loop on this object for ever.
            return Err(format!(
                "the heap collection at {address} has an empty free-space object"
            ));
        }
        position = position.saturating_add(advance);
    }
    Ok(found)
}

/// A length of `length_size` bytes, little-endian, from the start of `bytes`.
fn read_length(bytes: &[u8], length_size: usize) -> u64 {
    bytes[..length_size]
        .iter()
        .rev()
        .fold(0u64, |n, b| (n << 8) | u64::from(*b))
}

/// A stretch of the file (a heap collection, an object header's block) read through a
/// window of [`WINDOW`] bytes.
pub(super) struct Window<'f> {
    file: &'f dyn ReadAt,
    start: u64,
    size: u64,
    /// Where the buffer starts, relative to the collection.
    at: u64,
    buffer: Vec<u8>,
}

impl<'f> Window<'f> {
    /// The `size` bytes of `file` from `start`.
    pub(super) fn new(file: &'f dyn ReadAt, start: u64, size: u64) -> Self {
        Self {
            file,
            start,
            size,
            at: 0,
            buffer: Vec::new(),
        }
    }

    /// `length` bytes at `position` of the stretch (within it: the caller checks).
    pub(super) fn read(&mut self, position: u64, length: usize) -> Result<&[u8], String> {
        let end = position + length as u64;
        if position < self.at || end > self.at + self.buffer.len() as u64 {
            let want = (self.size - position).min(WINDOW as u64).max(length as u64);
            self.buffer.resize(want as usize, 0);
            self.file
                .read_exact_at(&mut self.buffer, self.start + position)
                .map_err(|e| format!("cannot read the heap: {e}"))?;
            self.at = position;
        }
        let from = (position - self.at) as usize;
        Ok(&self.buffer[from..from + length])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl ReadAt for Vec<u8> {
        fn read_exact_at(&self, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
            let start = usize::try_from(offset).map_err(std::io::Error::other)?;
            let bytes = self
                .get(start..start + buffer.len())
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
            buffer.copy_from_slice(bytes);
            Ok(())
        }
        fn length(&self) -> std::io::Result<u64> {
            Ok(self.len() as u64)
        }
    }

    const LAYOUT: HeapLayout = HeapLayout {
        base: 0,
        length_size: 8,
        address_size: 8,
    };

    /// A file of 64 bytes of padding, then a collection at 64 holding `objects`
    /// (index, declared size, bytes), then free space, `total` bytes in all.
    fn collection(objects: &[(u16, u64, usize)], total: u64) -> Vec<u8> {
        let mut file = vec![0u8; 64];
        file.extend_from_slice(b"GCOL\x01\0\0\0");
        file.extend_from_slice(&total.to_le_bytes());
        for (index, size, stored) in objects {
            file.extend_from_slice(&index.to_le_bytes());
            file.extend_from_slice(&[1, 0, 0, 0, 0, 0]);
            file.extend_from_slice(&size.to_le_bytes());
            file.extend(std::iter::repeat_n(b'x', stored.next_multiple_of(8)));
        }
        let used = (file.len() - 64) as u64;
        if used + 16 <= total {
            file.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
            file.extend_from_slice(&(total - used).to_le_bytes());
        }
        file.resize(64 + total as usize, 0);
        file
    }

    fn reference(index: u16, bytes: u64) -> HeapReference {
        HeapReference {
            address: 64,
            index,
            bytes,
        }
    }

    #[test]
    fn references_that_match_their_objects_pass() {
        let file = collection(&[(1, 5, 5), (2, 0, 0), (3, 12, 12)], 4096);
        let mut refs = vec![
            reference(3, 12),
            reference(1, 5),
            reference(1, 5),
            reference(2, 0),
        ];
        assert_eq!(check_references(&file, LAYOUT, &mut refs), Ok(()));
        let mut none = vec![HeapReference {
            address: 0,
            index: 0,
            bytes: 0,
        }];
        assert_eq!(check_references(&file, LAYOUT, &mut none), Ok(()));
    }

    #[test]
    fn a_length_shorter_than_its_object_is_refused() {
        // s31b HB10: the stored length says 1, the heap object holds 1,000.
        let file = collection(&[(1, 1000, 1000)], 4096);
        let refused = check_references(&file, LAYOUT, &mut vec![reference(1, 1)]);
        assert!(refused.is_err_and(|e| e.contains("makes 1 bytes") && e.contains("holds 1000")));
    }

    #[test]
    fn hostile_collections_are_refused() {
        let ok = collection(&[(1, 5, 5)], 4096);
        let refused = |file: &Vec<u8>, refs: Vec<HeapReference>| {
            check_references(file, LAYOUT, &mut refs.clone()).is_err()
        };
        // No such object, index 0, no heap object for a value of 5 bytes.
        assert!(refused(&ok, vec![reference(2, 5)]));
        assert!(refused(&ok, vec![reference(0, 5)]));
        assert!(refused(
            &ok,
            vec![HeapReference {
                address: 0,
                index: 1,
                bytes: 5
            }]
        ));
        // An object whose bytes run past its collection.
        let past = collection(&[(1, 5000, 8)], 4096);
        assert!(refused(&past, vec![reference(1, 5000)]));
        // A collection claiming more than the file holds, or not a collection.
        let mut long = ok.clone();
        long[72..80].copy_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(refused(&long, vec![reference(1, 5)]));
        let mut unsigned = ok.clone();
        unsigned[64] = b'X';
        assert!(refused(&unsigned, vec![reference(1, 5)]));
        // A free-space object of no size, on which libhdf5 loops for ever.
        let mut stuck = vec![0u8; 64];
        stuck.extend_from_slice(b"GCOL\x01\0\0\0");
        stuck.extend_from_slice(&4096u64.to_le_bytes());
        stuck.resize(64 + 4096, 0);
        assert!(refused(&stuck, vec![reference(1, 5)]));
        // A collection beyond the file.
        assert!(refused(
            &ok,
            vec![HeapReference {
                address: 1 << 50,
                index: 1,
                bytes: 5
            }]
        ));
    }

    /// A file whose bytes beyond `stored` are holes.
    struct Sparse(Vec<u8>, u64);

    impl ReadAt for Sparse {
        fn read_exact_at(&self, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
            self.0.read_exact_at(buffer, offset)
        }
        fn length(&self) -> std::io::Result<u64> {
            self.0.length()
        }
        fn stored(&self) -> std::io::Result<u64> {
            Ok(self.1)
        }
    }

    #[test]
    fn a_collection_larger_than_what_the_file_stores_is_refused() {
        // libhdf5 loads a collection whole (s32 HD6: 1e9 bytes stated in a sparse file
        // of 8 KB stored took 3.4 GB).
        let file = collection(&[(1, 5, 5)], 4 << 20);
        let stored = Sparse(file.clone(), 8192);
        assert!(check_references(&stored, LAYOUT, &mut vec![reference(1, 5)]).is_err());
        let whole = Sparse(file, 5 << 20);
        assert_eq!(
            check_references(&whole, LAYOUT, &mut vec![reference(1, 5)]),
            Ok(())
        );
    }

    #[test]
    fn headers_are_rounded_to_eight_bytes_whatever_the_size_of_lengths() {
        // s32b HE2: libhdf5's collection and object headers are 16 bytes with 4-byte
        // lengths too.
        let layout = HeapLayout {
            length_size: 4,
            ..LAYOUT
        };
        let mut f = vec![0u8; 64];
        f.extend_from_slice(b"GCOL\x01\0\0\0");
        f.extend_from_slice(&4096u32.to_le_bytes());
        f.extend_from_slice(&[0; 4]);
        f.extend_from_slice(&1u16.to_le_bytes());
        f.extend_from_slice(&[0; 6]);
        f.extend_from_slice(&30u32.to_le_bytes());
        f.extend_from_slice(&[0; 4]);
        f.extend(std::iter::repeat_n(b'S', 32));
        let used = (f.len() - 64) as u32;
        f.extend_from_slice(&[0; 8]);
        f.extend_from_slice(&(4096 - used).to_le_bytes());
        f.resize(64 + 4096, 0);
        assert_eq!(
            check_references(&f, layout, &mut vec![reference(1, 30)]),
            Ok(())
        );
        assert!(check_references(&f, layout, &mut vec![reference(1, 1)]).is_err());
    }

    #[test]
    fn a_later_object_of_the_same_index_is_the_one_read() {
        // libhdf5 keeps the last object of an index it walks.
        let file = collection(&[(1, 5, 5), (1, 900, 900)], 4096);
        assert!(check_references(&file, LAYOUT, &mut vec![reference(1, 5)]).is_err());
        assert_eq!(
            check_references(&file, LAYOUT, &mut vec![reference(1, 900)]),
            Ok(())
        );
    }
}
