//! HDF5 object headers, read by nctools itself to find the fractal heaps an object's
//! dense links and attributes live in, before HDF5 reads any of them.
//!
//! A fractal heap may declare a filter pipeline, which libhdf5 1.10 runs on its blocks
//! with no bound on the output: a 6.5 KB file whose group's attribute heap held
//! zlib(zlib(2e9 zeros)) took 1.99 GB in `ncdump -h` (and in the reference). No HDF5
//! writer filters these heaps (the public API cannot ask for it), so a file that has one
//! is refused. The shared-message heaps of the superblock extension are checked the same
//! way.
//!
//! The layouts (the HDF5 file format): a version 1 header is 16 bytes (version 1,
//! reserved, message count, reference count, the size of its messages, padding), then
//! messages of 8-byte headers (type: 2 bytes, size: 2, flags: 1, reserved: 3); a version
//! 2 header is `OHDR`, version 2, flags, optional times (flag 0x20) and attribute phase
//! change values (0x10), the size of its first block in 1 to 8 bytes (flags & 3), then
//! messages of 4-byte headers (type: 1, size: 2, flags: 1), 6 when creation order is
//! tracked (flag 0x04), and a checksum. A continuation message (0x10) names another
//! block: raw messages for version 1, `OCHK`, messages and a checksum for version 2. The
//! link info message (0x02) and the attribute info message (0x15) hold a version, flags,
//! a maximum creation index when flag 1 is set (8 bytes for links, 2 for attributes),
//! then the fractal heap's address. A fractal heap's header is `FRHP`, version 0, the
//! heap ID length (2 bytes), then the encoded length of its filter pipeline (2 bytes):
//! 0 when its blocks are not filtered.

use std::collections::{BTreeMap, HashSet};

use super::global_heap::{HeapLayout, ReadAt, Window};
use super::v1_btrees::{self, TreeKind};

/// The message types read here.
const LINK_INFO: u16 = 0x02;
const DATATYPE: u16 = 0x03;
const FILL_VALUE_OLD: u16 = 0x04;
const FILL_VALUE: u16 = 0x05;
const LAYOUT: u16 = 0x08;
const CONTINUATION: u16 = 0x10;
const SYMBOL_TABLE: u16 = 0x11;
const SHARED_MESSAGE_TABLE: u16 = 0x0F;
const ATTRIBUTE_INFO: u16 = 0x15;
const BTREE_K: u16 = 0x13;
const ATTRIBUTE: u16 = 0x0C;
const CACHE_IMAGE: u16 = 0x18;

/// The most blocks (the first and its continuations) one object header may have.
const MAX_BLOCKS: usize = 4096;

/// The most bytes one block of an object header may have: a message is at most 64 KiB,
/// and libhdf5 loads a block whole (before, a block stating 1e9 bytes took 2 GB, and 30 s
/// of this walk).
const MAX_BLOCK_BYTES: u64 = 64 << 20;

/// The most messages one object header may hold (HDF5 moves attributes out of a
/// header past 8 of them by default; a header holds dozens of messages).
const MAX_MESSAGES: usize = 1 << 16;

/// The largest B-tree K accepted (HDF5's defaults are 16 for group leaves, 32 for
/// group and chunk index nodes).
const MAX_BTREE_K: u16 = 1024;

/// What an object header says that the check needs.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct HeaderFacts {
    /// The fractal heaps of its dense links and attributes.
    pub(super) heaps: Vec<u64>,
    /// Whether it is a group: it has a link info or a symbol table message, as libhdf5
    /// decides (`H5O__group_isa`; a link message alone does not make one: s33b HH6).
    pub(super) is_group: bool,
    /// The address of a shared-message table (in a superblock extension's header).
    pub(super) shared_message_table: Option<u64>,
    /// The sizes its datatype messages declare for one value (a dataset's, a committed
    /// type's).
    pub(super) type_sizes: Vec<u64>,
    /// The object headers of the committed types its datatype messages share.
    pub(super) shared_types: Vec<u64>,
    /// The fill values its fill value messages hold (old and new), as stored.
    pub(super) fill_values: Vec<Vec<u8>>,
    /// Whether a fill value message is shared (kept in the shared-message heap, its
    /// value not here).
    pub(super) shared_fill_value: bool,
    /// Its symbol table's B-tree and local heap (a group of the older format).
    pub(super) symbol_tables: Vec<(u64, u64)>,
    /// Its chunk index's B-tree (a dataset of the older layouts), with the number of
    /// offsets in a key.
    pub(super) chunk_trees: Vec<(u64, usize)>,
    /// The largest of the B-tree `K` values a superblock extension's message states.
    pub(super) btree_k: Option<u16>,
    /// Whether it holds a metadata cache image message (a superblock extension's).
    pub(super) cache_image: bool,
}

/// The stretches of the file that the object headers read in one walk take: no two
/// may share a byte. libhdf5 keeps every block of a header while it is loaded, so blocks
/// that overlap count the same bytes many times (before, 250 continuation blocks over
/// the same 900 KB of one header took 1.84 GB of a 910 KB file, in HDF5's open).
#[derive(Debug, Default)]
pub(super) struct ClaimedBlocks {
    /// Each block's end, by its start.
    ends: BTreeMap<u64, u64>,
}

impl ClaimedBlocks {
    /// Records the block `start..end`, which must not overlap one recorded before.
    fn claim(&mut self, start: u64, end: u64) -> Result<(), String> {
        let before = self.ends.range(..=start).next_back();
        let after = self.ends.range(start..).next();
        if before.is_some_and(|(_, e)| *e > start) || after.is_some_and(|(s, _)| *s < end) {
            return Err(format!(
                "object header blocks overlap at {start} (no HDF5 writer makes them share \
                 bytes; libhdf5 would hold the shared bytes once per block)"
            ));
        }
        self.ends.insert(start, end);
        Ok(())
    }
}

/// Reads the object header at `address` (relative to the file's base), its blocks
/// recorded in `claimed`.
pub(super) fn read_header(
    file: &dyn ReadAt,
    layout: HeapLayout,
    address: u64,
    claimed: &mut ClaimedBlocks,
) -> Result<HeaderFacts, String> {
    let file_length = file
        .length()
        .map_err(|e| format!("cannot read the file's length: {e}"))?;
    let start = absolute(layout, address, file_length)?;
    let mut first = [0u8; 8];
    read_at(file, &mut first, start, file_length)?;
    let mut facts = HeaderFacts::default();
    let mut blocks: Vec<(u64, u64)> = Vec::new();
    let version_two = &first[..4] == b"OHDR";
    if version_two {
        if first[4] != 2 {
            return Err(format!(
                "the object header at {address} has version {}",
                first[4]
            ));
        }
        let flags = first[5];
        let mut at = start + 6;
        if flags & 0x20 != 0 {
            at += 16;
        }
        if flags & 0x10 != 0 {
            at += 4;
        }
        let width = 1usize << (flags & 3);
        let mut size = [0u8; 8];
        read_at(file, &mut size[..width], at, file_length)?;
        let size = u64::from_le_bytes(size);
        blocks.push((at + width as u64, size));
        // The prefix, the messages and the checksum.
        claim(claimed, start, (at + width as u64).saturating_add(size), 4)?;
        walk_blocks(
            file,
            layout,
            file_length,
            blocks,
            Some(flags),
            claimed,
            &mut facts,
        )?;
    } else {
        if first[0] != 1 {
            return Err(format!("there is no object header at {address}"));
        }
        let mut size = [0u8; 4];
        read_at(file, &mut size, start + 8, file_length)?;
        let size = u64::from(u32::from_le_bytes(size));
        blocks.push((start + 16, size));
        claim(claimed, start, start + 16 + size, 0)?;
        walk_blocks(file, layout, file_length, blocks, None, claimed, &mut facts)?;
    }
    for (tree, heap) in &facts.symbol_tables {
        v1_btrees::check_tree(file, layout, *tree, TreeKind::Group)?;
        v1_btrees::check_local_heap(file, layout, *heap)?;
    }
    for (tree, dimensionality) in &facts.chunk_trees {
        let kind = TreeKind::Chunks {
            dimensionality: *dimensionality,
        };
        v1_btrees::check_tree(file, layout, *tree, kind)?;
    }
    Ok(facts)
}

/// Claims `start..end` and `tail` bytes after it (a checksum) in `claimed`.
fn claim(claimed: &mut ClaimedBlocks, start: u64, end: u64, tail: u64) -> Result<(), String> {
    claimed.claim(start, end.saturating_add(tail))
}

/// Reads the object headers that HDF5's open loads, the root group's and the superblock
/// extension's, in `file`, before HDF5 opens it: `Err` says what is wrong; `Ok` too when
/// nctools finds no superblock it knows (HDF5 then says what is wrong). The superblock
/// is looked for where HDF5 looks, at 0, 512, 1024, 2048, ... (after a user block, whose
/// size is the base of its addresses). Its layout: the signature, then for versions 0
/// and 1 four version bytes, the sizes of addresses and lengths (bytes 13, 14), and from
/// byte 24 (28 for version 1) the base, free-space, end-of-file and driver addresses,
/// then the root group's symbol table entry (its name's offset, a length, and its
/// header's address);
/// for versions 2 and 3 the version, the two sizes (bytes 9, 10), flags, then the base,
/// extension, end-of-file and root group header addresses.
pub(super) fn check_opened_headers(file: &dyn ReadAt) -> Result<(), String> {
    let file_length = file
        .length()
        .map_err(|e| format!("cannot read the file's length: {e}"))?;
    let mut at = 0u64;
    let superblock = loop {
        let mut signature = [0u8; 8];
        if at + 16 > file_length || file.read_exact_at(&mut signature, at).is_err() {
            return Ok(());
        }
        if &signature == b"\x89HDF\r\n\x1a\n" {
            break at;
        }
        at = if at == 0 { 512 } else { at * 2 };
    };
    let mut head = [0u8; 16];
    read_at(file, &mut head, superblock, file_length)?;
    let (sizes, addresses_at, root) = match head[8] {
        0 => ((head[13], head[14]), 24, 4),
        1 => ((head[13], head[14]), 28, 4),
        2 | 3 => ((head[9], head[10]), 12, 3),
        _ => return Ok(()),
    };
    if ![2, 4, 8].contains(&sizes.0) || ![2, 4, 8].contains(&sizes.1) {
        return Ok(());
    }
    let layout = HeapLayout {
        base: superblock,
        address_size: usize::from(sizes.0),
        length_size: usize::from(sizes.1),
    };
    // The root's symbol table entry (versions 0 and 1) starts with its name's offset,
    // a length (libhdf5 decodes it as one), before the header's address.
    let name_offset = if head[8] < 2 { layout.length_size } else { 0 };
    let address = |index: u64, skip: usize| -> Result<Option<u64>, String> {
        let mut bytes = vec![0u8; layout.address_size];
        let offset = superblock + addresses_at + index * layout.address_size as u64 + skip as u64;
        read_at(file, &mut bytes, offset, file_length)?;
        Ok(defined(&bytes))
    };
    // A file shorter than its superblock's end of file is cut short: HDF5's open refuses
    // it, saying so, before it loads anything. The end of file is compared with the
    // file's length as it is, whatever the user block before the superblock (libhdf5
    // writes it so, and compares so: red team s34 RH10, where adding the user block's
    // length skipped this whole walk for every file with one).
    if address(2, 0)?.is_none_or(|end| end > file_length) {
        return Ok(());
    }
    // A driver information block (versions 0 and 1, written by the family and multi
    // drivers, never by a netCDF writer): libhdf5 extends the file's allocated end to
    // the length the block states and keeps an image that long (red team s34 RH11: 1.61
    // GB from 2,080 bytes).
    if head[8] < 2 && address(3, 0)?.is_some() {
        return Err(
            "its superblock names a driver information block (written by HDF5's \
                    family or multi drivers, never by a netCDF writer), whose stated \
                    length libhdf5 takes on trust; nctools does not open such files"
                .into(),
        );
    }
    // libhdf5 reads every version 1 B-tree node at the size K gives it (2K children and
    // 2K + 1 keys), whatever the node holds, and keeps a lookup's whole path (s33b HH3:
    // K of 65,535 over 33 levels took 1.26 GB from 56 KB stored). Versions 0 and 1 state
    // a group's leaf and internal K at 16 and 18, version 1 the chunk index's at 24;
    // versions 2 and 3 in the extension's B-tree K message.
    let mut ks: Vec<u16> = Vec::new();
    if head[8] < 2 {
        let mut words = [0u8; 10];
        read_at(file, &mut words, superblock + 16, file_length)?;
        let word = |at: usize| u16::from_le_bytes([words[at], words[at + 1]]);
        ks.extend([word(0), word(2)]);
        if head[8] == 1 {
            ks.push(word(8));
        }
    }
    let mut claimed = ClaimedBlocks::default();
    if head[8] >= 2 {
        if let Some(extension) = address(1, 0)? {
            let facts = read_header(file, layout, extension, &mut claimed)
                .map_err(|e| format!("the superblock extension: {e}"))?;
            // A metadata cache image: libhdf5 loads the headers it holds in place of
            // the file's, unchecked (red team s34 RH8: a length in it that lies,
            // SIGSEGV from 2,577 bytes); the walks here read the file's own.
            if facts.cache_image {
                return Err(
                    "its superblock extension holds a metadata cache image, which \
                            libhdf5 loads in place of the file's own headers without \
                            checking them; nctools does not open such files (`h5repack` \
                            writes a copy without it)"
                        .into(),
                );
            }
            ks.extend(facts.btree_k);
        }
    }
    if let Some(root) = address(root, name_offset)? {
        read_header(file, layout, root, &mut claimed)
            .map_err(|e| format!("the root group: {e}"))?;
    }
    match ks.into_iter().find(|k| *k > MAX_BTREE_K) {
        Some(k) => Err(format!(
            "its superblock gives B-tree nodes a K of {k}, more than {MAX_BTREE_K} (HDF5's \
             default is 16 or 32; libhdf5 reads every node at the size K gives it)"
        )),
        None => Ok(()),
    }
}

/// Walks the message blocks of one header (`v2_flags` for a version 2 header),
/// continuations included (each claimed in `claimed`), recording what [`HeaderFacts`]
/// holds.
fn walk_blocks(
    file: &dyn ReadAt,
    layout: HeapLayout,
    file_length: u64,
    mut blocks: Vec<(u64, u64)>,
    v2_flags: Option<u8>,
    claimed: &mut ClaimedBlocks,
    facts: &mut HeaderFacts,
) -> Result<(), String> {
    let mut seen = HashSet::new();
    let mut walked = 0;
    let mut messages = 0usize;
    while let Some((start, size)) = blocks.pop() {
        walked += 1;
        if walked > MAX_BLOCKS || !seen.insert(start) {
            return Err(format!(
                "an object header's continuations loop or exceed {MAX_BLOCKS} blocks"
            ));
        }
        if start.checked_add(size).is_none_or(|end| end > file_length) {
            return Err(format!(
                "an object header's block at {start} runs past the file"
            ));
        }
        if size > MAX_BLOCK_BYTES {
            return Err(format!(
                "an object header's block at {start} says {size} bytes, more than \
                 {MAX_BLOCK_BYTES}"
            ));
        }
        let header_size: u64 = match v2_flags {
            Some(flags) if flags & 0x04 != 0 => 6,
            Some(_) => 4,
            None => 8,
        };
        let end = size;
        let mut window = Window::new(file, start, size);
        let mut position = 0u64;
        while position + header_size <= end {
            // libhdf5 keeps a record of every message of a header while it is loaded
            // (s33b MH1: a 66 MB block of 8-byte NIL messages, all in holes, took 557
            // MB); real headers hold dozens.
            messages += 1;
            if messages > MAX_MESSAGES {
                return Err(format!(
                    "an object header holds more than {MAX_MESSAGES} messages"
                ));
            }
            let head = window.read(position, header_size as usize)?.to_vec();
            let (kind, length, message_flags) = match v2_flags {
                Some(_) => (
                    u16::from(head[0]),
                    u64::from(u16::from_le_bytes([head[1], head[2]])),
                    head[3],
                ),
                None => (
                    u16::from_le_bytes([head[0], head[1]]),
                    u64::from(u16::from_le_bytes([head[2], head[3]])),
                    head[4],
                ),
            };
            let data_at = position + header_size;
            if data_at + length > end {
                return Err(format!(
                    "a message of an object header at {start} runs past its block"
                ));
            }
            let data = window.read(data_at, length as usize)?.to_vec();
            match kind {
                LINK_INFO | ATTRIBUTE_INFO => {
                    let index_width = if kind == LINK_INFO { 8 } else { 2 };
                    if let Some(heap) = heap_address(&data, index_width, layout.address_size)? {
                        facts.heaps.push(heap);
                    }
                    facts.is_group |= kind == LINK_INFO;
                }
                SYMBOL_TABLE => {
                    facts.is_group = true;
                    let a = layout.address_size;
                    let tree = data.get(..a).and_then(defined);
                    let heap = data.get(a..2 * a).and_then(defined);
                    if let (Some(tree), Some(heap)) = (tree, heap) {
                        facts.symbol_tables.push((tree, heap));
                    }
                }
                // A chunked layout of versions 1 to 3 (version 4's indexes are others).
                LAYOUT => {
                    let a = layout.address_size;
                    let found = match data.first() {
                        Some(1 | 2) if data.get(2) == Some(&2) => {
                            data.get(1).zip(data.get(8..8 + a).and_then(defined))
                        }
                        Some(3) if data.get(1) == Some(&2) => {
                            data.get(2).zip(data.get(3..3 + a).and_then(defined))
                        }
                        _ => None,
                    };
                    if let Some((dimensionality, tree)) = found {
                        facts.chunk_trees.push((tree, usize::from(*dimensionality)));
                    }
                }
                // A shared message other than a datatype that names an object header
                // (any but version 3 of type 1, a shared-message heap's: libhdf5 1.10
                // takes every other for a header's address whatever the type byte says,
                // s33b HH1, s33c NH3): only a
                // datatype is kept in a header of its own, and libhdf5 follows such a
                // reference into the header it names, for ever when that is the header
                // itself (red team s33 HG11: an attribute naming its own header,
                // SIGSEGV).
                kind if message_flags & 2 != 0
                    && kind != DATATYPE
                    && !matches!((data.first(), data.get(1)), (Some(3), Some(1))) =>
                {
                    return Err(format!(
                        "a shared message of type {kind} names an object header, which only \
                         a datatype's may"
                    ));
                }
                // Shared (flag 2): a reference to a committed type's header (version 1:
                // version, type, 6 reserved bytes and a length before the address, as
                // libhdf5 decodes it (s33b HH5: nctools read it at 8, libhdf5 at 16); 2
                // and 3: 2 bytes; version 3's type 1 is a shared-message heap's, not
                // followed).
                DATATYPE if message_flags & 2 != 0 => {
                    if let Some(address) = shared_header_address(&data, layout) {
                        facts.shared_types.push(address);
                    }
                }
                CACHE_IMAGE => facts.cache_image = true,
                // An attribute (versions 2 and 3) whose datatype is shared names the
                // committed type's header as a datatype message does, and libhdf5
                // follows it the same way (red team s34 RH7: a type that names itself,
                // reached only through an attribute, SIGSEGV 52,000 frames deep); a
                // shared dataspace names a header only a datatype's may.
                ATTRIBUTE => {
                    if let Some(address) = attribute_shared_type(&data, layout)? {
                        facts.shared_types.push(address);
                    }
                }
                // Shared (flag 2): the message holds where the shared one is (red team
                // s33 HG6: read as "version 3, no value", its value went unchecked).
                FILL_VALUE | FILL_VALUE_OLD if message_flags & 2 != 0 => {
                    facts.shared_fill_value = true;
                }
                FILL_VALUE | FILL_VALUE_OLD => {
                    if let Some(value) = fill_value(kind, &data) {
                        facts.fill_values.push(value.to_vec());
                    }
                }
                DATATYPE => {
                    let size = data.get(4..8).ok_or("a short datatype message")?;
                    facts.type_sizes.push(u64::from(u32::from_le_bytes([
                        size[0], size[1], size[2], size[3],
                    ])));
                }
                // Version, then the chunk index's, a group's internal and leaf K.
                // Every such message counts (libhdf5 takes the first: s33c NM1).
                BTREE_K => {
                    facts.btree_k = (1..4)
                        .filter_map(|i| data.get(2 * i - 1..2 * i + 1))
                        .map(|k| u16::from_le_bytes([k[0], k[1]]))
                        .chain(facts.btree_k)
                        .max();
                }
                SHARED_MESSAGE_TABLE => {
                    let table = data
                        .get(1..1 + layout.address_size)
                        .ok_or("a short shared-message table message")?;
                    facts.shared_message_table = defined(table);
                }
                CONTINUATION => {
                    let (a, l) = (layout.address_size, layout.length_size);
                    let next = data
                        .get(..a)
                        .and_then(defined)
                        .ok_or("a short continuation")?;
                    let next_size = data
                        .get(a..a + l)
                        .map(little_endian)
                        .ok_or("a short continuation")?;
                    let next_start = absolute(layout, next, file_length)?;
                    if next_start
                        .checked_add(next_size)
                        .is_none_or(|e| e > file_length)
                    {
                        return Err(format!(
                            "an object header's block at {next_start} runs past the file"
                        ));
                    }
                    claim(claimed, next_start, next_start + next_size, 0)?;
                    if v2_flags.is_some() {
                        let mut signature = [0u8; 4];
                        read_at(file, &mut signature, next_start, file_length)?;
                        if &signature != b"OCHK" {
                            return Err(format!("no continuation block at {next}"));
                        }
                        // After the signature, before the checksum.
                        blocks.push((next_start + 4, next_size.saturating_sub(8)));
                    } else {
                        blocks.push((next_start, next_size));
                    }
                }
                _ => {}
            }
            position = data_at + length;
        }
    }
    Ok(())
}

/// The fill value a fill value message (`kind`: the old one holds a size and the value;
/// versions 1 and 2 of the new one a version, three bytes of times and "defined", then
/// the size and value (version 2: only when defined); version 3 a version, flags (0x20:
/// a value follows), the size and value); `None` when it holds none.
fn fill_value(kind: u16, data: &[u8]) -> Option<&[u8]> {
    let sized = |at: usize| {
        let size = data.get(at..at + 4)?;
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
        data.get(at + 4..at + 4 + size).filter(|v| !v.is_empty())
    };
    if kind == FILL_VALUE_OLD {
        return sized(0);
    }
    match data.first()? {
        1 => sized(4),
        2 if *data.get(3)? != 0 => sized(4),
        3 if data.get(1)? & 0x20 != 0 => sized(2),
        _ => None,
    }
}

/// The fractal heap address of a link info or attribute info message `data`, whose
/// maximum creation index takes `index_width` bytes when present; `None` when the
/// address is undefined (no dense storage).
fn heap_address(
    data: &[u8],
    index_width: usize,
    address_size: usize,
) -> Result<Option<u64>, String> {
    let flags = *data
        .get(1)
        .ok_or("a short link or attribute info message")?;
    let at = 2 + if flags & 1 != 0 { index_width } else { 0 };
    let address = data
        .get(at..at + address_size)
        .ok_or("a short link or attribute info message")?;
    Ok(defined(address))
}

/// Whether the fractal heap whose header is at `address` filters its blocks.
pub(super) fn heap_is_filtered(
    file: &dyn ReadAt,
    layout: HeapLayout,
    address: u64,
) -> Result<bool, String> {
    let file_length = file
        .length()
        .map_err(|e| format!("cannot read the file's length: {e}"))?;
    let start = absolute(layout, address, file_length)?;
    let mut header = [0u8; 9];
    read_at(file, &mut header, start, file_length)?;
    if &header[..4] != b"FRHP" {
        return Err(format!(
            "there is no fractal heap at {address}, where a message says"
        ));
    }
    Ok(u16::from_le_bytes([header[7], header[8]]) != 0)
}

/// The fractal heaps of the shared-message table at `address` (`SMTB`: per index its
/// version, type, message types (2 bytes), minimum size (4), two cutoffs (2 each),
/// message count (2), index address and heap address; `count` indexes, as the file
/// creation properties say).
pub(super) fn shared_message_heaps(
    file: &dyn ReadAt,
    layout: HeapLayout,
    address: u64,
    count: usize,
) -> Result<Vec<u64>, String> {
    let file_length = file
        .length()
        .map_err(|e| format!("cannot read the file's length: {e}"))?;
    let start = absolute(layout, address, file_length)?;
    let a = layout.address_size;
    // Version, type, message types (2), minimum size (4), list and B-tree cutoffs (2 each),
    // message count (2), then the two addresses (before, 12 + 2a: the heap checked was
    // the wrong one).
    let entry = 14 + 2 * a;
    let size = 4 + entry * count.min(64);
    let mut table = vec![0u8; size];
    read_at(file, &mut table, start, file_length)?;
    if &table[..4] != b"SMTB" {
        return Err(format!("no shared-message table at {address}"));
    }
    Ok((0..count.min(64))
        .filter_map(|i| {
            let heap = 4 + i * entry + 14 + a;
            defined(&table[heap..heap + a])
        })
        .collect())
}

/// An address of the file (relative to its base) as an offset within it.
fn absolute(layout: HeapLayout, address: u64, file_length: u64) -> Result<u64, String> {
    layout
        .base
        .checked_add(address)
        .filter(|a| *a < file_length)
        .ok_or_else(|| format!("an object header names {address}, beyond the file"))
}

/// Fills `buffer` from `offset`, which must lie within the file with it.
pub(super) fn read_at(
    file: &dyn ReadAt,
    buffer: &mut [u8],
    offset: u64,
    file_length: u64,
) -> Result<(), String> {
    if offset
        .checked_add(buffer.len() as u64)
        .is_none_or(|end| end > file_length)
    {
        return Err(format!("an object header at {offset} runs past the file"));
    }
    file.read_exact_at(buffer, offset)
        .map_err(|e| format!("cannot read the file at {offset}: {e}"))
}

/// A little-endian number of up to 8 bytes.
pub(super) fn little_endian(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |n, b| (n << 8) | u64::from(*b))
}

/// An address, `None` when undefined (every byte 0xff).
fn defined(bytes: &[u8]) -> Option<u64> {
    (!bytes.iter().all(|b| *b == 0xff)).then(|| little_endian(bytes))
}

/// The committed type's header an attribute message's shared datatype names, if its
/// datatype is shared that way (versions 2 and 3: flags bit 0; the datatype, after the
/// name, is a shared-message reference, decoded as a shared datatype message's). An
/// attribute whose dataspace is shared is refused: only a datatype's reference may name
/// a header.
fn attribute_shared_type(data: &[u8], layout: HeapLayout) -> Result<Option<u64>, String> {
    let (Some(&version), Some(&flags)) = (data.first(), data.get(1)) else {
        return Ok(None);
    };
    if version < 2 || flags & 3 == 0 {
        return Ok(None);
    }
    let word = |at: usize| {
        data.get(at..at + 2)
            .map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let (Some(name_size), Some(type_size)) = (word(2), word(4)) else {
        return Err("a short attribute message".into());
    };
    let type_at = 8 + usize::from(version == 3) + name_size;
    let reference = data
        .get(type_at..type_at + type_size)
        .ok_or("a short attribute message")?;
    if flags & 2 != 0 {
        let space_at = type_at + type_size;
        let space = data.get(space_at..).unwrap_or_default();
        if header_offset(space, layout).is_some() {
            return Err(
                "an attribute's shared dataspace names an object header, which only \
                        a datatype's may"
                    .into(),
            );
        }
    }
    if flags & 1 == 0 {
        return Ok(None);
    }
    Ok(shared_header_address(reference, layout))
}

/// Where a shared-message reference holds the address of the header it names, if it
/// names one: version 1 after its version, type, 6 reserved bytes and a length (as
/// libhdf5 decodes it: s33b HH5); versions 2 and 3 after 2 bytes, version 3's type 1
/// excepted (a shared-message heap's; libhdf5 1.10 takes every other version 3 type for
/// a header's address: s33c NH3).
fn header_offset(reference: &[u8], layout: HeapLayout) -> Option<usize> {
    match (reference.first(), reference.get(1)) {
        (Some(1), _) => Some(8 + layout.length_size),
        (Some(2), _) => Some(2),
        (Some(3), Some(kind)) if *kind != 1 => Some(2),
        _ => None,
    }
}

/// The header a shared-message reference names ([`header_offset`]), when defined.
fn shared_header_address(reference: &[u8], layout: HeapLayout) -> Option<u64> {
    header_offset(reference, layout)
        .and_then(|at| reference.get(at..at + layout.address_size))
        .and_then(defined)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYOUT: HeapLayout = HeapLayout {
        base: 0,
        length_size: 8,
        address_size: 8,
    };

    /// A version 1 header at 0 whose first block (16..72) holds an attribute info
    /// message naming a heap at 256 and a continuation to a block at 128 (40 bytes),
    /// which holds a link info message naming a heap at 288; the second heap filtered.
    fn file() -> Vec<u8> {
        let mut f = vec![0u8; 320];
        f[0] = 1;
        f[8..12].copy_from_slice(&56u32.to_le_bytes());
        // Attribute info (0x15), 24 bytes: version, flags 0, heap, name index.
        f[16..18].copy_from_slice(&0x15u16.to_le_bytes());
        f[18..20].copy_from_slice(&24u16.to_le_bytes());
        f[26..34].copy_from_slice(&256u64.to_le_bytes());
        f[34..42].copy_from_slice(&[0xff; 8]);
        // Continuation (0x10), 16 bytes: address and length.
        f[48..50].copy_from_slice(&0x10u16.to_le_bytes());
        f[50..52].copy_from_slice(&16u16.to_le_bytes());
        f[56..64].copy_from_slice(&128u64.to_le_bytes());
        f[64..72].copy_from_slice(&40u64.to_le_bytes());
        // Link info (0x02), 32 bytes: version, flags 1 (a creation index first), heap.
        f[128..130].copy_from_slice(&0x02u16.to_le_bytes());
        f[130..132].copy_from_slice(&32u16.to_le_bytes());
        f[137] = 1;
        f[146..154].copy_from_slice(&288u64.to_le_bytes());
        f[256..260].copy_from_slice(b"FRHP");
        f[288..292].copy_from_slice(b"FRHP");
        f[295..297].copy_from_slice(&22u16.to_le_bytes());
        f
    }

    #[test]
    fn heaps_are_found_through_continuations_and_filtered_ones_told() {
        let f = file();
        assert_eq!(
            read_header(&f, LAYOUT, 0, &mut ClaimedBlocks::default()),
            Ok(HeaderFacts {
                heaps: vec![256, 288],
                is_group: true,
                ..HeaderFacts::default()
            })
        );
        assert_eq!(heap_is_filtered(&f, LAYOUT, 256), Ok(false));
        assert_eq!(heap_is_filtered(&f, LAYOUT, 288), Ok(true));
    }

    #[test]
    fn a_shared_message_table_names_its_heaps_where_the_format_puts_them() {
        // `SMTB`, then per index 14 bytes and two addresses (red team s32b HE3: read as
        // 12 bytes, the address checked was another's).
        let mut f = vec![0u8; 128];
        f[..4].copy_from_slice(b"SMTB");
        for (i, heap) in [(0usize, 64u64), (1, 96)] {
            let entry = 4 + i * 30;
            f[entry + 14..entry + 22].copy_from_slice(&[0xff; 8]);
            f[entry + 22..entry + 30].copy_from_slice(&heap.to_le_bytes());
        }
        f[64..68].copy_from_slice(b"FRHP");
        f[96..100].copy_from_slice(b"FRHP");
        f[103..105].copy_from_slice(&2u16.to_le_bytes());
        assert_eq!(shared_message_heaps(&f, LAYOUT, 0, 2), Ok(vec![64, 96]));
        assert_eq!(heap_is_filtered(&f, LAYOUT, 64), Ok(false));
        assert_eq!(heap_is_filtered(&f, LAYOUT, 96), Ok(true));
        // An address that holds no heap is refused, not taken as unfiltered.
        assert!(heap_is_filtered(&f, LAYOUT, 32).is_err());
    }

    #[test]
    fn blocks_that_share_a_byte_are_refused() {
        let mut claimed = ClaimedBlocks::default();
        assert!(claimed.claim(100, 200).is_ok());
        assert!(claimed.claim(200, 300).is_ok());
        assert!(claimed.claim(0, 100).is_ok());
        for (start, end) in [(150, 160), (199, 201), (50, 101), (0, 400), (100, 200)] {
            assert!(claimed.claim(start, end).is_err(), "{start}..{end}");
        }
        // The same header read twice in one walk is refused too: its blocks are claimed.
        let f = file();
        let mut claimed = ClaimedBlocks::default();
        assert!(read_header(&f, LAYOUT, 0, &mut claimed).is_ok());
        assert!(read_header(&f, LAYOUT, 0, &mut claimed).is_err_and(|e| e.contains("overlap")));
    }

    #[test]
    fn hostile_headers_are_refused_not_walked() {
        // A continuation to its own block.
        let mut looping = file();
        looping[128..130].copy_from_slice(&0x10u16.to_le_bytes());
        looping[130..132].copy_from_slice(&16u16.to_le_bytes());
        looping[136..144].copy_from_slice(&128u64.to_le_bytes());
        looping[144..152].copy_from_slice(&40u64.to_le_bytes());
        assert!(read_header(&looping, LAYOUT, 0, &mut ClaimedBlocks::default()).is_err());
        // A message longer than its block, a block past the file, no header at all.
        let mut long = file();
        long[18..20].copy_from_slice(&4000u16.to_le_bytes());
        assert!(read_header(&long, LAYOUT, 0, &mut ClaimedBlocks::default()).is_err());
        let mut past = file();
        past[64..72].copy_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(read_header(&past, LAYOUT, 0, &mut ClaimedBlocks::default()).is_err());
        // A block stating more than 64 MiB (s32b HE9: libhdf5 loads it whole).
        let mut huge = file();
        huge.resize(80 << 20, 0);
        huge[64..72].copy_from_slice(&(70u64 << 20).to_le_bytes());
        assert!(read_header(&huge, LAYOUT, 0, &mut ClaimedBlocks::default())
            .is_err_and(|e| e.contains("more than")));
        assert!(read_header(&file(), LAYOUT, 256, &mut ClaimedBlocks::default()).is_err());
        assert!(read_header(&file(), LAYOUT, 1 << 50, &mut ClaimedBlocks::default()).is_err());
    }
}
