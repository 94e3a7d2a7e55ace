//! The walk that finds a filtered fractal heap before HDF5 reads one
//! ([`super::object_headers`] says why): from the root group down, each object's header
//! is read by nctools, its heaps checked, and only then are a group's links listed by
//! HDF5 (which reads its link heap). The shared-message heaps of the superblock
//! extension are checked first. The same walk refuses a type whose one value is larger
//! than a chunk may be (the chunk limit), and checks the heap references of datasets'
//! fill values (libnetcdf reads them while opening the file).

use std::collections::HashSet;
use std::ffi::{c_char, c_void, CStr};

use hdf5_metno_sys::h5::{herr_t, H5_index_t, H5_iter_order_t};
use hdf5_metno_sys::h5i::hid_t;
use hdf5_metno_sys::h5l::{H5L_info1_t, H5L_type_t, H5Literate1};
use hdf5_metno_sys::h5o::{H5O_info1_t, H5Oclose, H5Oget_info2, H5Oopen_by_addr, H5O_INFO_BASIC};

use super::global_heap::{HeapReference, ReadAt};
use super::hdf5::Object;
use super::heap_references::{references_at_depth, FileHeap};
use super::object_headers::{heap_is_filtered, read_header, shared_message_heaps, ClaimedBlocks};
use super::Lib;

/// The deepest groups may nest: HDF5's own link walks recurse once per level (no netCDF
/// file nests groups more than a few deep).
const MAX_GROUP_DEPTH: usize = 256;

/// The most objects the walk visits.
const MAX_OBJECTS: usize = 10_000_000;

/// Where the open HDF5 `file` has a fractal heap whose blocks are filtered, or an object
/// header nctools cannot read, described for people; `None` when it has none (or HDF5
/// cannot tell where its root is). `linked` gets the address of every object a hard
/// link names (and the root's).
pub(super) fn filtered_heap(lib: &Lib, file: &Object, linked: &mut HashSet<u64>) -> Option<String> {
    let heap = FileHeap::of_file(lib, file.id)?;
    let mut claimed = ClaimedBlocks::default();
    if let Some(found) = filtered_shared_messages(lib, file, &heap, &mut claimed) {
        return Some(found);
    }
    let root = object_address(file.id)?;
    let mut seen = HashSet::new();
    // Every object a hard link names: libnetcdf reads an object once per link (a group's
    // whole tree each time), and the link count in an object's header, which the
    // attribute walk checks, is the file's word (red team s33 HG9: patched to 1, groups
    // were read 2^k times).
    linked.insert(root);
    let mut queue = vec![("/".to_string(), root)];
    while let Some((path, address)) = queue.pop() {
        if !seen.insert(address) {
            continue;
        }
        if seen.len() > MAX_OBJECTS {
            return Some(format!("more than {MAX_OBJECTS} objects"));
        }
        let facts = match read_header(&heap, heap.layout(), address, &mut claimed) {
            Ok(facts) => facts,
            Err(wrong) => return Some(format!("{path}: {wrong}")),
        };
        // A committed type's own datatype message is never shared: libhdf5 follows a
        // shared one into the header it names, for ever when that is the header itself
        // or a chain of them (red team s33 HG11: SIGSEGV from 1,480 bytes; a chain of
        // 20,000 overflowed the stack). The header a shared type names is read here,
        // before HDF5 opens this object.
        for shared in &facts.shared_types {
            let again = read_header(&heap, heap.layout(), *shared, &mut ClaimedBlocks::default())
                .map(|named| !named.shared_types.is_empty());
            if *shared == address || again != Ok(false) {
                return Some(format!(
                    "{path}: its type names a header whose own type is shared again (or \
                     that cannot be read), which no HDF5 writer makes"
                ));
            }
            queue.push((format!("{path} (its type)"), *shared));
        }
        for found in facts.heaps {
            match heap_is_filtered(&heap, heap.layout(), found) {
                Ok(false) => {}
                Ok(true) => {
                    return Some(format!(
                        "{path}: its links or attributes are kept in a heap whose blocks \
                         are filtered, which no HDF5 writer makes and libhdf5 inflates \
                         without bound"
                    ))
                }
                Err(wrong) => return Some(format!("{path}: {wrong}")),
            }
        }
        // A value larger than the value limit: HDF5 builds fill values and conversion
        // buffers at that size, several times over (before, a compound of 1e9 bytes,
        // nothing written, took 1 GB from 1.5 KB, an opaque type 2.96 GB; one of 268 MB,
        // under the chunk limit, 1.3 GB in nccopy's define step).
        let limit = codecs::partial::value_cap() as u64;
        if let Some(size) = facts.type_sizes.iter().find(|s| **s > limit) {
            return Some(format!(
                "{path}: its type declares values of {size} bytes each, {}",
                value_limit_words(limit)
            ));
        }
        if let Some((stored, _)) = stored_type(file.id, address).filter(|_| !facts.is_group) {
            // Its depth first: HDF5's native type of a deeply nested type costs the
            // square of its depth (s33 HG8).
            let weight = match super::type_weight::weigh(stored.id) {
                Err(wrong) => return Some(format!("{path}: {wrong}")),
                Ok(weight) => weight,
            };
            if let Some(size) = hdf5_value_size(&stored).filter(|s| *s > limit) {
                return Some(format!(
                    "{path}: its type makes values of {size} bytes each, {}",
                    value_limit_words(limit)
                ));
            }
            // What one value takes decoded, bounded as its stored size is (s33b HH8: one
            // value of 15 million one-byte compounds, 17 KB deflated, took 1.85 GB).
            if weight.total() as u64 > limit {
                return Some(format!(
                    "{path}: its type makes values of {} bytes each once decoded, {}",
                    weight.total(),
                    value_limit_words(limit)
                ));
            }
        }
        if !facts.fill_values.is_empty() || facts.shared_fill_value {
            let fills = Fills {
                stored: &facts.fill_values,
                shared: facts.shared_fill_value,
            };
            if let Err(wrong) = check_fill_values(file.id, address, &fills, &heap) {
                return Some(format!("{path}: {wrong}"));
            }
        }
        if facts.is_group {
            for (name, child) in links(file.id, address) {
                let child_path = if path == "/" {
                    format!("/{name}")
                } else {
                    format!("{path}/{name}")
                };
                if child_path.matches('/').count() > MAX_GROUP_DEPTH {
                    return Some(format!(
                        "{child_path}: groups nested more than {MAX_GROUP_DEPTH} deep, which \
                         HDF5's link walks follow one level of recursion each"
                    ));
                }
                if !linked.insert(child) {
                    return Some(format!(
                        "{child_path}: an object another link names too, which libnetcdf \
                         would read once per link (no netCDF library writes it)"
                    ));
                }
                queue.push((child_path, child));
            }
        }
    }
    None
}

/// "more than the value limit ...", for a refusal.
pub(crate) fn value_limit_words(limit: u64) -> String {
    format!(
        "more than the value limit ({limit} bytes, a sixteenth of the chunk limit, which \
         {} raises)",
        codecs::partial::CHUNK_LIMIT_VARIABLE
    )
}

/// The filtered heap of the superblock extension's shared-message indexes, if any.
fn filtered_shared_messages(
    _lib: &Lib,
    file: &Object,
    heap: &FileHeap,
    claimed: &mut ClaimedBlocks,
) -> Option<String> {
    use hdf5_metno_sys::h5f::H5Fget_create_plist;
    use hdf5_metno_sys::h5p::{H5Pclose, H5Pget_shared_mesg_nindexes};
    let mut indexes: u32 = 0;
    // SAFETY: the file is open; the property list is checked and closed once.
    unsafe {
        let create = H5Fget_create_plist(file.id);
        if create < 0 {
            return None;
        }
        let got = H5Pget_shared_mesg_nindexes(create, &mut indexes);
        H5Pclose(create);
        if got < 0 || indexes == 0 {
            return None;
        }
    }
    let layout = heap.layout();
    let wrong = |what: String| Some(format!("the superblock extension: {what}"));
    // Superblock version 2 or 3: signature, version, two sizes, flags, then the base
    // address and the extension's address.
    let mut superblock = [0u8; 12];
    if heap.read_exact_at(&mut superblock, layout.base).is_err() || superblock[8] < 2 {
        return wrong("nctools cannot find it".into());
    }
    let mut extension = vec![0u8; layout.address_size];
    let at = layout.base + 12 + layout.address_size as u64;
    if heap.read_exact_at(&mut extension, at).is_err() {
        return wrong("nctools cannot find it".into());
    }
    let extension = extension
        .iter()
        .rev()
        .fold(0u64, |n, b| (n << 8) | u64::from(*b));
    let facts = match read_header(heap, layout, extension, claimed) {
        Ok(facts) => facts,
        Err(e) => return wrong(e),
    };
    let table = facts.shared_message_table?;
    let heaps = match shared_message_heaps(heap, layout, table, indexes as usize) {
        Ok(heaps) => heaps,
        Err(e) => return wrong(e),
    };
    for found in heaps {
        match heap_is_filtered(heap, layout, found) {
            Ok(false) => {}
            Ok(true) => {
                return wrong(
                    "its shared messages are kept in a heap whose blocks are filtered, \
                     which no HDF5 writer makes and libhdf5 inflates without bound"
                        .into(),
                )
            }
            Err(e) => return wrong(e),
        }
    }
    None
}

/// The fill values of a dataset's header: those its messages hold, and whether one is
/// shared (its value elsewhere).
struct Fills<'f> {
    stored: &'f [Vec<u8>],
    shared: bool,
}

/// Checks the heap references of the fill values `fills` (as stored in the header of the
/// dataset at `address`) when its type holds variable-length values: libnetcdf reads the
/// fill value while opening the file (through `H5Dget_create_plist`, which converts it),
/// and libhdf5 1.10 copies its heap objects into buffers sized from their stored
/// lengths (before, a fill value whose length said 1 for a 100,000-byte object aborted
/// `ncdump -h`). A stored value is one reference for a string or a sequence; a fill value
/// of a compound or array holding such values, or of sequences of sequences, is refused
/// (its references are not where this check can find them).
fn check_fill_values(
    file: hid_t,
    address: u64,
    fills: &Fills<'_>,
    heap: &FileHeap,
) -> Result<(), String> {
    use hdf5_metno_sys::h5t::{
        H5T_class_t, H5Tclose, H5Tget_class, H5Tget_size, H5Tget_super, H5Tis_variable_str,
    };
    // SAFETY: the file is open; every id is checked, and closed by `Object`. Opening a
    // dataset and asking its type read no heap (its creation properties would).
    let (unit, top_level) = unsafe {
        let Some((file_type, true)) = stored_type(file, address) else {
            return Ok(());
        };
        if references_at_depth(file_type.id, 0).is_none() {
            return Ok(());
        }
        let nested = references_at_depth(file_type.id, 1).is_some();
        match H5Tget_class(file_type.id) {
            H5T_class_t::H5T_STRING if H5Tis_variable_str(file_type.id) > 0 => (1, true),
            H5T_class_t::H5T_VLEN if nested => (0, true),
            H5T_class_t::H5T_VLEN => {
                let base = H5Tget_super(file_type.id);
                if base < 0 {
                    return Err("HDF5 cannot tell its type".into());
                }
                let base = Object {
                    id: base,
                    close: H5Tclose,
                };
                (H5Tget_size(base.id) as u64, true)
            }
            _ => (0, false),
        }
    };
    // A shared fill value message of such a type: HDF5 reads its value from the
    // shared-message heap, where this check does not look (no netCDF library shares
    // messages).
    if fills.shared {
        return Err(
            "a fill value holding variable-length values kept as a shared message (which \
             no netCDF library writes), which nctools cannot check before libhdf5 reads it"
                .into(),
        );
    }
    // A fill value of nothing but empty values (libnetcdf's default for user types)
    // names no heap object.
    let fills: Vec<&Vec<u8>> = fills
        .stored
        .iter()
        .filter(|f| f.iter().any(|b| *b != 0))
        .collect();
    if fills.is_empty() {
        return Ok(());
    }
    // A sequence of sequences: its inner references are inside the heap object.
    if !top_level || unit == 0 {
        return Err(
            "a fill value holding variable-length values inside a compound, an array or a \
             sequence, which nctools does not check"
                .into(),
        );
    }
    let layout = heap.layout();
    let word = |bytes: &[u8]| {
        bytes
            .iter()
            .rev()
            .fold(0u64, |n, b| (n << 8) | u64::from(*b))
    };
    let mut found = Vec::new();
    for fill in fills {
        let a = layout.address_size;
        let Some(stored) = fill.get(..8 + a) else {
            return Err(format!("a fill value of {} bytes", fill.len()));
        };
        let index = word(&stored[4 + a..]);
        found.push(HeapReference {
            address: word(&stored[4..4 + a]),
            index: u16::try_from(index).unwrap_or(0),
            bytes: word(&stored[..4]).saturating_mul(unit),
        });
    }
    heap.check(&mut found)
        .map_err(|wrong| format!("its fill value: {wrong}"))
}

/// The largest size HDF5 gives one value of the `stored` type of a dataset or committed
/// type: its own and its native form's (which HDF5 computes from the members, where the
/// stored type's size field may say less: a compound declaring 7,648 bytes whose array
/// member spans 1e9 took 2.96 GB in nccopy's define step).
fn hdf5_value_size(stored: &Object) -> Option<u64> {
    use hdf5_metno_sys::h5t::{H5T_direction_t, H5Tclose, H5Tget_native_type, H5Tget_size};
    // SAFETY: the type is open; the native type's id is checked, and closed by `Object`.
    unsafe {
        let native = H5Tget_native_type(stored.id, H5T_direction_t::H5T_DIR_DEFAULT);
        let native_size = if native < 0 {
            0
        } else {
            let native = Object {
                id: native,
                close: H5Tclose,
            };
            H5Tget_size(native.id)
        };
        Some(H5Tget_size(stored.id).max(native_size) as u64)
    }
}

/// The object at `address` of `file`, open; `None` when HDF5 cannot open it.
fn open_by_address(file: hid_t, address: u64) -> Option<Object> {
    // SAFETY: the file is open (the caller's); the id is checked, and closed by `Object`.
    let id = unsafe { H5Oopen_by_addr(file, address) };
    (id >= 0).then_some(Object {
        id,
        close: H5Oclose,
    })
}

/// The stored type of the dataset or committed type at `address`, open, and whether the
/// object is a dataset; `None` for other objects. Opening a dataset or a type and asking
/// its type read no heap (a dataset's creation properties would).
fn stored_type(file: hid_t, address: u64) -> Option<(Object, bool)> {
    use hdf5_metno_sys::h5d::H5Dget_type;
    use hdf5_metno_sys::h5i::{H5I_type_t, H5Iget_type};
    use hdf5_metno_sys::h5t::{H5Tclose, H5Tcopy};
    let object = open_by_address(file, address)?;
    // SAFETY: the object is open; the type id is checked, and closed by `Object`.
    let (id, dataset) = unsafe {
        match H5Iget_type(object.id) {
            H5I_type_t::H5I_DATASET => (H5Dget_type(object.id), true),
            H5I_type_t::H5I_DATATYPE => (H5Tcopy(object.id), false),
            _ => return None,
        }
    };
    (id >= 0).then_some((
        Object {
            id,
            close: H5Tclose,
        },
        dataset,
    ))
}

/// The address of the object `location` (the file: its root group).
fn object_address(location: hid_t) -> Option<u64> {
    let mut info = H5O_info1_t::default();
    // SAFETY: the location is open; `info` is a valid place for the basic fields.
    let got = unsafe { H5Oget_info2(location, &mut info, H5O_INFO_BASIC) };
    (got >= 0).then_some(info.addr)
}

/// The hard links of the group at `address`: each name and the address it names.
fn links(file: hid_t, address: u64) -> Vec<(String, u64)> {
    let mut found: Vec<(String, u64)> = Vec::new();
    let Some(group) = open_by_address(file, address) else {
        return found;
    };
    // SAFETY: the group is open; the callback has H5Literate's signature and `found`
    // outlives the synchronous call.
    unsafe {
        H5Literate1(
            group.id,
            H5_index_t::H5_INDEX_NAME,
            H5_iter_order_t::H5_ITER_NATIVE,
            std::ptr::null_mut(),
            Some(collect_link),
            std::ptr::from_mut(&mut found).cast(),
        );
    }
    found
}

/// H5Literate's callback: records a hard link's name and address.
///
/// # Safety
/// HDF5's contract for `H5L_iterate1_t`: `name` is NUL-terminated, `info` valid during
/// the call; `data` is the vector given to H5Literate.
unsafe extern "C" fn collect_link(
    _group: hid_t,
    name: *const c_char,
    info: *const H5L_info1_t,
    data: *mut c_void,
) -> herr_t {
    if name.is_null() || info.is_null() || data.is_null() {
        return 0;
    }
    // SAFETY: per the contract.
    unsafe {
        let found = &mut *data.cast::<Vec<(String, u64)>>();
        let mut info = *info;
        if info.type_ == H5L_type_t::H5L_TYPE_HARD {
            let address = *info.u.address();
            found.push((CStr::from_ptr(name).to_string_lossy().into_owned(), address));
        }
    }
    0
}
