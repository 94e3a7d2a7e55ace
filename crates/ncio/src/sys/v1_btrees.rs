//! Version 1 B-trees and local heaps, read by nctools before HDF5 follows them: the
//! index of a group's links (a symbol table: a B-tree of type 0 and a local heap for
//! the names) and the chunk index of a dataset of the older layouts (a B-tree of type 1).
//! libhdf5 1.10 follows both without a cycle check: a node that names itself as its
//! child recursed until the stack ended (SIGSEGV from 3,896 bytes, in `ncdump -h` for a
//! group's), and a local heap whose free list names itself took all memory (3.7 GB of a
//! 2,060-byte file; the reference 23.9 GB) (red team s33 HG7, HG10).
//!
//! The layouts (the HDF5 file format): a node is `TREE`, its type (1 byte), level (1),
//! entries used (2), its left and right siblings' addresses, then keys and children
//! interleaved, one key more than children: a group's key is a length (an offset into
//! the local heap), a chunk's is its size (4), filter mask (4) and one 8-byte offset
//! per dimension (the layout's dimensionality, the element size's included). A child of
//! a node of level L is a node of level L - 1; level 0's children are symbol nodes or
//! chunks. A local heap is `HEAP`, version 0, three reserved bytes, its data segment's
//! size (a length), the offset of its first free block (a length; 1 for none) and its
//! data segment's address; each free block starts with the offset of the next (1 for
//! none) and its own size.

use std::collections::HashSet;

use super::global_heap::{HeapLayout, ReadAt};
use super::object_headers::{little_endian, read_at as read};

/// The deepest a B-tree may be (HDF5's are a few levels deep).
const MAX_LEVEL: u8 = 16;

/// The most entries a node may hold (HDF5's default is 32 for groups and 64 for chunks;
/// the format allows at most 2^16).
const MAX_ENTRIES: usize = 1 << 16;

/// Which B-tree: a group's links, or a dataset's chunks of `dimensionality` offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TreeKind {
    /// Type 0: a group's symbol table.
    Group,
    /// Type 1: chunks, with this many offsets in a key.
    Chunks { dimensionality: usize },
}

/// Walks the B-tree whose root node is at `root`: every node a `TREE` of `kind`'s type,
/// each child one level below its parent, no node twice, and each within the file.
pub(super) fn check_tree(
    file: &dyn ReadAt,
    layout: HeapLayout,
    root: u64,
    kind: TreeKind,
) -> Result<(), String> {
    let length = file
        .length()
        .map_err(|e| format!("cannot read the file's length: {e}"))?;
    let (type_byte, key) = match kind {
        TreeKind::Group => (0u8, layout.length_size),
        TreeKind::Chunks { dimensionality } => (1u8, 8 + 8 * dimensionality),
    };
    let a = layout.address_size;
    let mut seen = HashSet::new();
    let mut stack: Vec<(u64, Option<u8>)> = vec![(root, None)];
    while let Some((address, level_wanted)) = stack.pop() {
        if !seen.insert(address) {
            return Err(format!(
                "a B-tree node at {address} is reached twice (a cycle)"
            ));
        }
        let start = layout
            .base
            .checked_add(address)
            .filter(|s| *s < length)
            .ok_or_else(|| format!("a B-tree node at {address} is beyond the file"))?;
        let mut head = vec![0u8; 8 + 2 * a];
        read(file, &mut head, start, length)?;
        let level = head[5];
        let entries = usize::from(u16::from_le_bytes([head[6], head[7]]));
        if &head[..4] != b"TREE" || head[4] != type_byte {
            return Err(format!(
                "there is no B-tree node of type {type_byte} at {address}"
            ));
        }
        if level > MAX_LEVEL || level_wanted.is_some_and(|wanted| wanted != level) {
            return Err(format!(
                "the B-tree node at {address} is of level {level}, where its parent's \
                 child must be {}",
                level_wanted.map_or(MAX_LEVEL, |l| l)
            ));
        }
        if entries > MAX_ENTRIES {
            return Err(format!(
                "the B-tree node at {address} says {entries} entries"
            ));
        }
        if level == 0 {
            continue;
        }
        // Keys and children: key, child, key, child, ..., key.
        let body = entries * (key + a) + key;
        let mut entries_bytes = vec![0u8; body];
        read(file, &mut entries_bytes, start + head.len() as u64, length)?;
        for i in 0..entries {
            let at = i * (key + a) + key;
            let child = little_endian(&entries_bytes[at..at + a]);
            stack.push((child, Some(level - 1)));
        }
    }
    Ok(())
}

/// Reads the local heap at `address`: its data segment within the file, and its free
/// list within the segment, each block once.
pub(super) fn check_local_heap(
    file: &dyn ReadAt,
    layout: HeapLayout,
    address: u64,
) -> Result<(), String> {
    let length = file
        .length()
        .map_err(|e| format!("cannot read the file's length: {e}"))?;
    let (l, a) = (layout.length_size, layout.address_size);
    let start = layout
        .base
        .checked_add(address)
        .filter(|s| *s < length)
        .ok_or_else(|| format!("a local heap at {address} is beyond the file"))?;
    let mut head = vec![0u8; 8 + 2 * l + a];
    read(file, &mut head, start, length)?;
    if &head[..4] != b"HEAP" || head[4] != 0 {
        return Err(format!("there is no local heap at {address}"));
    }
    let size = little_endian(&head[8..8 + l]);
    let mut free = little_endian(&head[8 + l..8 + 2 * l]);
    let data = little_endian(&head[8 + 2 * l..8 + 2 * l + a]);
    let data_start = layout
        .base
        .checked_add(data)
        .filter(|s| s.checked_add(size).is_some_and(|end| end <= length))
        .ok_or_else(|| format!("the local heap at {address} says {size} bytes past the file"))?;
    let mut seen = HashSet::new();
    // H5HL_FREE_NULL: the end of the list.
    while free != 1 {
        if !seen.insert(free) || free.checked_add(2 * l as u64).is_none_or(|end| end > size) {
            return Err(format!(
                "the free list of the local heap at {address} runs in a circle or out of \
                 its {size} bytes"
            ));
        }
        let mut block = vec![0u8; 2 * l];
        read(file, &mut block, data_start + free, length)?;
        let block_size = little_endian(&block[l..]);
        if free.checked_add(block_size).is_none_or(|end| end > size) {
            return Err(format!(
                "a free block of the local heap at {address} runs out of its {size} bytes"
            ));
        }
        free = little_endian(&block[..l]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYOUT: HeapLayout = HeapLayout {
        base: 0,
        length_size: 8,
        address_size: 8,
    };

    /// A group B-tree node at `at` of `level` whose one child is at `child`.
    fn node(file: &mut [u8], at: usize, level: u8, child: u64) {
        file[at..at + 4].copy_from_slice(b"TREE");
        file[at + 4] = 0;
        file[at + 5] = level;
        file[at + 6..at + 8].copy_from_slice(&1u16.to_le_bytes());
        // Siblings (16 bytes), key (8), child (8), key (8).
        file[at + 32..at + 40].copy_from_slice(&child.to_le_bytes());
    }

    #[test]
    fn a_node_that_names_itself_or_skips_a_level_is_refused() {
        let mut file = vec![0u8; 512];
        node(&mut file, 0, 1, 100);
        node(&mut file, 100, 0, 0);
        assert_eq!(check_tree(&file, LAYOUT, 0, TreeKind::Group), Ok(()));
        let mut itself = file.clone();
        node(&mut itself, 0, 1, 0);
        assert!(check_tree(&itself, LAYOUT, 0, TreeKind::Group).is_err());
        let mut skipping = file.clone();
        node(&mut skipping, 0, 2, 100);
        assert!(check_tree(&skipping, LAYOUT, 0, TreeKind::Group).is_err());
        assert!(check_tree(&file, LAYOUT, 0, TreeKind::Chunks { dimensionality: 2 }).is_err());
    }

    #[test]
    fn a_free_list_in_a_circle_is_refused() {
        // HEAP, version 0; 64 bytes of data at 64; first free block at 16.
        let mut file = vec![0u8; 160];
        file[..4].copy_from_slice(b"HEAP");
        file[8..16].copy_from_slice(&64u64.to_le_bytes());
        file[16..24].copy_from_slice(&16u64.to_le_bytes());
        file[24..32].copy_from_slice(&64u64.to_le_bytes());
        // The block at 64 + 16: next 1 (none), size 48.
        file[80..88].copy_from_slice(&1u64.to_le_bytes());
        file[88..96].copy_from_slice(&48u64.to_le_bytes());
        assert_eq!(check_local_heap(&file, LAYOUT, 0), Ok(()));
        let mut circle = file.clone();
        circle[80..88].copy_from_slice(&16u64.to_le_bytes());
        assert!(check_local_heap(&circle, LAYOUT, 0).is_err());
        let mut long = file.clone();
        long[88..96].copy_from_slice(&4096u64.to_le_bytes());
        assert!(check_local_heap(&long, LAYOUT, 0).is_err());
    }
}
