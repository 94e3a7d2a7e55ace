//! Classic headers built byte by byte: for the tests of this crate, and for writers of
//! synthetic classic files (the bench's data generators).

/// A variable to write: name, dimension ids, type id, attributes (name, type id, value
/// bytes big-endian, count) and data (big-endian, all records).
pub struct TestVar {
    /// Its name.
    pub name: &'static str,
    /// Its dimension ids.
    pub dims: Vec<u64>,
    /// Its type id (`NC_FLOAT` is 5).
    pub nc_type: u32,
    /// Its attributes: name, type id, value bytes (big-endian, unpadded), count.
    pub atts: Vec<(&'static str, u32, Vec<u8>, u64)>,
}

/// Builds classic files of `version` (1, 2 or 5).
pub struct TestFile {
    /// The format version: 1, 2 or 5.
    pub version: u8,
    /// The record count.
    pub numrecs: u64,
    /// The dimensions: name and length (0 for the record dimension).
    pub dims: Vec<(&'static str, u64)>,
    /// The global attributes, as [`TestVar::atts`].
    pub global_atts: Vec<(&'static str, u32, Vec<u8>, u64)>,
    /// The variables.
    pub vars: Vec<TestVar>,
}

impl TestFile {
    fn count(&self, out: &mut Vec<u8>, n: u64) {
        if self.version == 5 {
            out.extend_from_slice(&n.to_be_bytes());
        } else {
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
    }

    fn name(&self, out: &mut Vec<u8>, name: &str) {
        self.count(out, name.len() as u64);
        out.extend_from_slice(name.as_bytes());
        pad(out);
    }

    fn atts(&self, out: &mut Vec<u8>, atts: &[(&str, u32, Vec<u8>, u64)]) {
        if atts.is_empty() {
            out.extend_from_slice(&0u32.to_be_bytes());
            self.count(out, 0);
            return;
        }
        out.extend_from_slice(&12u32.to_be_bytes());
        self.count(out, atts.len() as u64);
        for (name, t, bytes, n) in atts {
            self.name(out, name);
            out.extend_from_slice(&t.to_be_bytes());
            self.count(out, *n);
            out.extend_from_slice(bytes);
            pad(out);
        }
    }

    /// The header, with each variable's data offset given by `begins`.
    pub fn header(&self, begins: &[u64], vsizes: &[u64]) -> Vec<u8> {
        let mut out = vec![b'C', b'D', b'F', self.version];
        self.count(&mut out, self.numrecs);
        if self.dims.is_empty() {
            out.extend_from_slice(&0u32.to_be_bytes());
            self.count(&mut out, 0);
        } else {
            out.extend_from_slice(&10u32.to_be_bytes());
            self.count(&mut out, self.dims.len() as u64);
            for (name, len) in &self.dims {
                self.name(&mut out, name);
                self.count(&mut out, *len);
            }
        }
        self.atts(&mut out, &self.global_atts);
        if self.vars.is_empty() {
            out.extend_from_slice(&0u32.to_be_bytes());
            self.count(&mut out, 0);
        } else {
            out.extend_from_slice(&11u32.to_be_bytes());
            self.count(&mut out, self.vars.len() as u64);
            for (i, v) in self.vars.iter().enumerate() {
                self.name(&mut out, v.name);
                self.count(&mut out, v.dims.len() as u64);
                for d in &v.dims {
                    self.count(&mut out, *d);
                }
                self.atts(&mut out, &v.atts);
                out.extend_from_slice(&v.nc_type.to_be_bytes());
                self.count(&mut out, vsizes.get(i).copied().unwrap_or(0));
                let begin = begins.get(i).copied().unwrap_or(0);
                if self.version == 1 {
                    out.extend_from_slice(&(begin as u32).to_be_bytes());
                } else {
                    out.extend_from_slice(&begin.to_be_bytes());
                }
            }
        }
        out
    }

    /// The header alone, with every data offset just past it.
    pub fn header_only(&self) -> Vec<u8> {
        let zeros = vec![0; self.vars.len()];
        let len = self.header(&zeros, &zeros).len() as u64;
        self.header(&vec![len; self.vars.len()], &zeros)
    }
}

fn pad(out: &mut Vec<u8>) {
    while out.len() % 4 != 0 {
        out.push(0);
    }
}
