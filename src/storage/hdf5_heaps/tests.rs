use super::*;

/// A collection of `size` bytes (lengths of 8 bytes) holding `objects` (index, data
/// length), then free space when room is left, as HDF5 writes it.
fn collection(size: usize, objects: &[(u16, usize)]) -> Vec<u8> {
    let mut c = b"GCOL\x01\0\0\0".to_vec();
    c.extend_from_slice(&(size as u64).to_le_bytes());
    for &(index, len) in objects {
        c.extend_from_slice(&index.to_le_bytes());
        c.extend_from_slice(&[1, 0, 0, 0, 0, 0]);
        c.extend_from_slice(&(len as u64).to_le_bytes());
        c.resize(c.len() + len.div_ceil(8) * 8, 0xab);
    }
    let left = size - c.len();
    if left >= 16 {
        c.extend_from_slice(&[0; 8]);
        c.extend_from_slice(&(left as u64).to_le_bytes());
    }
    c.resize(size, 0);
    c
}

fn check_bytes(bytes: &[u8]) -> Option<HeapDefect> {
    check_source(bytes).err()
}

#[test]
fn a_well_formed_collection_passes() {
    let mut file = vec![0u8; 2048];
    file.extend(collection(4096, &[(1, 8), (2, 8), (3, 13)]));
    assert_eq!(check_bytes(&file), None);
    // Full to the last byte, no free space.
    assert_eq!(check_bytes(&collection(48, &[(1, 16)])), None);
}

#[test]
fn an_object_larger_than_what_is_left_is_a_defect() {
    let mut file = vec![0u8; 2048];
    let mut c = collection(4096, &[(1, 8), (2, 8), (3, 8)]);
    // Object 3's size, as one flipped bit makes it: 0x2008.
    c[64 + 9] = 0x20;
    file.extend(c);
    let defect = check_bytes(&file).map(|d| d.to_string());
    assert_eq!(
        defect.as_deref(),
        Some(
            "corrupt HDF5 global heap at byte 2048: object 3 at byte 2112 claims 8200 bytes, \
             but only 4016 remain in its 4096-byte collection"
        )
    );
}

#[test]
fn free_space_of_size_zero_is_a_defect() {
    // Object 2 grows over the free space's header: the walk lands in zeros.
    let mut c = collection(4096, &[(1, 8), (2, 8)]);
    c[40 + 9] = 0x02;
    let defect = check_bytes(&c);
    assert!(
        defect
            .as_ref()
            .is_some_and(|d| d.reason.contains("free space")),
        "{defect:?}"
    );
}

#[test]
fn a_collection_past_the_end_of_the_file_is_a_defect() {
    let mut c = collection(4096, &[(1, 8)]);
    c.truncate(1000);
    let defect = check_bytes(&c);
    assert!(
        defect
            .as_ref()
            .is_some_and(|d| d.reason.contains("1000 bytes remain")),
        "{defect:?}"
    );
}

#[test]
fn gcol_in_data_is_not_taken_for_a_collection() {
    let mut bytes = b"some text with GCOL in it and more".to_vec();
    bytes.extend(b"GCOL\x02\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff");
    assert_eq!(check_bytes(&bytes), None);
}

#[test]
fn lengths_of_four_bytes_are_read_from_a_version_0_superblock() {
    const SIGNATURE: &[u8; 8] = b"\x89HDF\r\n\x1a\n";
    let mut sb = SIGNATURE.to_vec();
    sb.extend_from_slice(&[0, 0, 0, 0, 0, 8, 4, 0]);
    assert_eq!(size_of_lengths(&sb[..]), 4);
    let mut v2 = SIGNATURE.to_vec();
    v2.extend_from_slice(&[2, 8, 2, 0, 0, 0, 0, 0]);
    assert_eq!(size_of_lengths(&v2[..]), 2);
    // A superblock after a 512-byte user block.
    let mut ub = vec![0u8; 512];
    ub.extend_from_slice(&sb);
    assert_eq!(size_of_lengths(&ub[..]), 4);
    // No superblock: 8.
    assert_eq!(size_of_lengths(&[0u8; 64][..]), 8);
}

#[test]
fn any_bytes_are_judged_without_panicking() {
    // A fixed-seed generator: collections with random sizes and objects, and noise.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut flagged = 0;
    for round in 0..20_000 {
        let len = (next() % 600) as usize;
        let mut buf: Vec<u8> = (0..len).map(|_| (next() % 7) as u8).collect();
        let at = (next() as usize) % (len + 1);
        let mut head = b"GCOL\x01\0\0\0".to_vec();
        head.extend_from_slice(&(next() % 700).to_le_bytes());
        buf.splice(at..at, head);
        let lengths = [2, 4, 8][round % 3];
        if check_region(&buf[..], 0, buf.len() as u64, lengths).is_some() {
            flagged += 1;
        }
    }
    // Random sizes are mostly wrong: the check must have said so, not just passed all.
    assert!(flagged > 1_000, "{flagged}");
}

#[test]
fn collections_are_found_across_blocks_and_in_the_tail() {
    // A GCOL straddling the first block boundary, and a bad collection near the end of a
    // file longer than the scanned head.
    let mut file = vec![0u8; BLOCK - 2];
    file.extend(collection(4096, &[(1, 8)]));
    assert_eq!(check_bytes(&file), None);
    let mut bad = collection(4096, &[(1, 8), (2, 8)]);
    bad[40 + 9] = 0x02;
    let mut at_boundary = vec![0u8; BLOCK - 2];
    at_boundary.extend(bad.clone());
    assert!(check_bytes(&at_boundary).is_some());
    let mut long = vec![0u8; (SCAN_BYTES + 2 * BLOCK as u64) as usize];
    long.extend(bad);
    let defect = check_bytes(&long);
    assert_eq!(
        defect.map(|d| d.offset),
        Some(SCAN_BYTES + 2 * BLOCK as u64)
    );
}
