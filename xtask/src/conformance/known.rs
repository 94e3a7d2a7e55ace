//! Known differences of the nccopy, zarr and ncgen modes: cases where ours differs from the
//! reference on purpose, as the project's DECISIONS record decides. Each is reported as
//! "expected difference (DECISIONS Dn)" and listed in every summary, instead of counting
//! as a failure.
//!
//! An entry is NAME OPTS Dn REASON DIFFERENCES. NAME is the corpus base name (every kind)
//! or KIND/NAME (that kind only); OPTS one of the nccopy mode's option sets exactly as
//! written there (`-k nc4 -d 1 -s`), or for the zarr mode `zarr` and the variant's
//! options (`zarr`, `zarr -F *,zstd,3`); Dn the decision; REASON a few words; and
//! DIFFERENCES the differences themselves, exactly: for the nccopy mode, for each dump
//! that differs, a line "ncdump OPTS:" (OPTS as displayed: `(none)`, `-hs`), then, when
//! the exit statuses differ, "exit ref=N ours=M", then the lines only the reference's copy
//! has, each as "-LINE", and those only ours has, as "+LINE", in the order `diff` gives
//! them; for the zarr mode, "data:" and the lines of the data sections in that form. An
//! entry applies only when ours succeeds and the differences are exactly these; anything
//! else on that case is a failure, and its report shows the differences in this form. An
//! entry whose case turns out otherwise is listed as not seen. Do not add the reference's
//! failures with -d or -s that ours does not share (4.9.0 fails with -d on any file
//! holding a string variable): those are checked generally ("reference fails, ours
//! matches input").

/// One known difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    /// Corpus base name, or KIND/NAME.
    pub name: &'static str,
    /// The option set.
    pub opts: &'static str,
    /// The decision (D2, D8...).
    pub decision: &'static str,
    /// A few words of why.
    pub reason: &'static str,
    /// The differences themselves.
    pub expected: &'static str,
}

impl Known {
    const fn new(
        name: &'static str,
        opts: &'static str,
        decision: &'static str,
        reason: &'static str,
        expected: &'static str,
    ) -> Known {
        Known {
            name,
            opts,
            decision,
            reason,
            expected,
        }
    }
}

/// The list.
pub const KNOWN: &[Known] = &[
    // The input's bzip2 (307) stays and deflate is added: -d applies after the table
    // (row 4 keeps the input filters); the reference replaces every input filter by deflate.
    Known::new("nc_test4_bzip2", "-k nc4 -d 1 -s", "D2", "-d adds deflate to the input bzip2 instead of replacing it", "ncdump -hs:\n+\t\tvar:_Filter = \"307,9\" ;"),
    Known::new("nc_test4_ref_filtered", "-k nc4 -d 1 -s", "D2", "-d adds deflate to the input bzip2 instead of replacing it", "ncdump -hs:\n+  \t\tvar:_Filter = \"307,9\" ;"),
    Known::new("nc_test4_ref_filteredvv", "-k nc4 -d 1 -s", "D2", "-d adds deflate to the input bzip2 instead of replacing it", "ncdump -hs:\n+\t\tvar1:_Filter = \"307,9\" ;\n+  \t\tvar2:_Filter = \"307,9\" ;"),
    Known::new("nczarr_test_ref_bzip2", "-k nc4 -d 1 -s", "D2", "-d adds deflate to the input bzip2 instead of replacing it", "ncdump -hs:\n+\t\tvar:_Filter = \"307,9\" ;"),
    Known::new("nczarr_test_ref_filtered", "-k nc4 -d 1 -s", "D2", "-d adds deflate to the input bzip2 instead of replacing it", "ncdump -hs:\n+  \t\tvar:_Filter = \"307,9\" ;"),
    // The input keeps bzip2 and szip (row 4); the library refuses deflate next to szip, so
    // -d is left out for that variable with a warning (shuffle is still added).
    Known::new("nc_test4_ref_ncgenF", "-k nc4 -d 1 -s", "D2", "-d keeps the input bzip2|szip, skips deflate (szip) with a warning", "ncdump -hs:\n-  \t\tvar:_DeflateLevel = 1 ;\n+  \t\tvar:_Filter = \"307,4|4,32,32\" ;"),
    // Stored chunks copied as they are (nccopy.md "Stored chunks"): a variable whose input
    // chunks were never all written keeps the input's fill setting, so that the unwritten
    // ones read as fill values as in the input; the reference writes every value and sets
    // _NoFill. The data are the same.
    Known::new("nc_test4_ref_fillonly", "", "stored", "unwritten chunks stay unwritten: the input fill setting is kept", "ncdump -hs:\n-\t\tf:_NoFill = \"true\" ;"),
    Known::new("ncdump_cdl_bigr1", "", "stored", "unwritten chunks stay unwritten: the input fill setting is kept", "ncdump -hs:\n-\t\tt:_NoFill = \"true\" ;\n-\t\tvar2:_NoFill = \"true\" ;"),
    Known::new("ncdump_cdl_bigr2", "", "stored", "unwritten chunks stay unwritten: the input fill setting is kept", "ncdump -hs:\n-\t\tt:_NoFill = \"true\" ;\n-\t\tvar2:_NoFill = \"true\" ;"),
    Known::new("ncdump_tst_charfill", "", "stored", "unwritten chunks stay unwritten: the input fill setting is kept", "ncdump -hs:\n-\t\tIDENTIFIER:_NoFill = \"true\" ;"),
    // Strings in NCZarr are fixed-length, as netCDF-C 4.9.1 and later store them (4.9.0 has
    // none): a value longer than the variable's maximum length is cut to it, and a NIL (null)
    // string is stored as an empty one, which reads back as "" (the fill value, `_`).
    Known::new("nczarr_test_ref_string", "zarr", "D8", "strings are cut to _nczarr_maxstrlen (4) in NCZarr, as netCDF-C 4.9.1+ does", "data:\n- truncated = \"0123456789\" ;\n+ truncated = \"0123\" ;"),
    Known::new("ncdump_cdl_ref_niltest", "zarr", "D8", "NIL strings are stored as empty (fixed-length |S<n>) and read back as empty", "data:\n- v1 = NIL ;\n+ v1 = _ ;\n- v2 = NIL ;\n+ v2 = _ ;\n-  NIL, NIL,\n-  NIL, NIL ;\n+  _, _,\n+  _, _ ;"),
    Known::new("ncdump_cdl_ref_tst_h_scalar", "zarr", "D8", "NIL strings are stored as empty (fixed-length |S<n>) and read back as empty", "data:\n- vstrvar1 = NIL ;\n+ vstrvar1 = _ ;\n- vstrvar2 = NIL ;\n+ vstrvar2 = _ ;"),
    Known::new("nczarr_test_ref_string", "zarr -F *,zstd,3", "D8", "strings are cut to _nczarr_maxstrlen (4) in NCZarr, as netCDF-C 4.9.1+ does", "data:\n- truncated = \"0123456789\" ;\n+ truncated = \"0123\" ;"),
    Known::new("ncdump_cdl_ref_niltest", "zarr -F *,zstd,3", "D8", "NIL strings are stored as empty (fixed-length |S<n>) and read back as empty", "data:\n- v1 = NIL ;\n+ v1 = _ ;\n- v2 = NIL ;\n+ v2 = _ ;\n-  NIL, NIL,\n-  NIL, NIL ;\n+  _, _,\n+  _, _ ;"),
    Known::new("ncdump_cdl_ref_tst_h_scalar", "zarr -F *,zstd,3", "D8", "NIL strings are stored as empty (fixed-length |S<n>) and read back as empty", "data:\n- vstrvar1 = NIL ;\n+ vstrvar1 = _ ;\n- vstrvar2 = NIL ;\n+ vstrvar2 = _ ;"),
];

/// A known difference of the ncgen mode: where our ncgen writes another file than the
/// reference's on purpose (docs/ncgen.md, "Where we differ"). It applies when the first
/// difference of the dumps of that case is exactly `first_difference` (as the report
/// prints it: "line N: ref `...` ours `...`").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownNcgen {
    /// The kind (nc3, nc6, nc5, nc4, nc7), or `*` for every kind.
    pub kind: &'static str,
    /// The corpus base name.
    pub name: &'static str,
    /// The option set as displayed (`(none)`, `-hs`), or `*` for both.
    pub opts: &'static str,
    /// A few words of why.
    pub reason: &'static str,
    /// The first difference, exactly.
    pub first_difference: &'static str,
}

const NUL: &str = "a character constant '\\0' is NUL; the reference reads it as '0'";
const CDF5_INT64: &str = "CDF5 keeps int64 variables int64; the reference writes them as int";

/// The ncgen mode's list.
pub const KNOWN_NCGEN: &[KnownNcgen] = &[
    KnownNcgen { kind: "*", name: "nczarr_test_ref_nulls", opts: "*", reason: NUL, first_difference: "line 4: ref `  test:nul_sng = 48b ;` ours `  test:nul_sng = 0b ;`" },
    KnownNcgen { kind: "nc4", name: "ncdump_cdl_ref_const_test", opts: "(none)", reason: "out-of-range L constants keep their 64-bit values; the reference wraps them to 32 bits", first_difference: "line 27: ref ` int64v = 1863462912, -339607552, 4294967295 ;` ours ` int64v = -200000000000, 51200000000, -6067004223159161907 ;`" },
    KnownNcgen { kind: "nc5", name: "ncdump_cdl_ref_const_test", opts: "(none)", reason: CDF5_INT64, first_difference: "line 10: ref ` int int64v(d3) ;` ours ` int64 int64v(d3) ;`" },
    KnownNcgen { kind: "nc5", name: "ncdump_inttags4", opts: "(none)", reason: CDF5_INT64, first_difference: "line 8: ref ` int i64(d) ;` ours ` int64 i64(d) ;`" },
    KnownNcgen { kind: "nc5", name: "ncdump_ref_inttags4", opts: "(none)", reason: CDF5_INT64, first_difference: "line 8: ref ` int i64(d) ;` ours ` int64 i64(d) ;`" },
    KnownNcgen { kind: "nc5", name: "ncdump_ref_ctest1_nc4", opts: "(none)", reason: CDF5_INT64, first_difference: "line 30: ref ` int i64 ;` ours ` int64 i64 ;`" },
    KnownNcgen { kind: "nc5", name: "ncdump_ref_nc_test_netcdf4", opts: "(none)", reason: CDF5_INT64, first_difference: "line 22: ref ` int i64 ;` ours ` int64 i64 ;`" },
];

/// The known ncgen difference that `detail` (a case's first difference) is, if any.
pub fn known_ncgen(
    kind: &str,
    name: &str,
    opts: &str,
    detail: &str,
) -> Option<&'static KnownNcgen> {
    KNOWN_NCGEN.iter().find(|k| {
        (k.kind == "*" || k.kind == kind)
            && k.name == name
            && (k.opts == "*" || k.opts == opts)
            && k.first_difference == detail
    })
}
