//! Data of netCDF-4 variables with an unlimited dimension after the first, such as
//! `int v(U0, F1, U2)`: the values of each unlimited dimension past the first are in
//! braces (`{1, 2}, {3}`), one group per index of the dimensions before it, and the longest
//! group sets that dimension's length. Like the reference ncgen, the values are then laid
//! out in row-major order in the array of those lengths (so a short group does not leave a
//! gap: `{"a", "def"}, {"xy"}` in `char c(U1, D2, U3)` is "adef", "xy").
//!
//! Such data is read whole (it is nested, and the lengths are known only at the end);
//! every other variable is streamed.

use std::io::BufRead;

use anyhow::{anyhow, bail};
use cdl::parse::{push_constant, Constant, DataReader, DataToken, Position};
use ncmodel::{AtomicType, Values};

use super::data::{next_token, place};

/// A variable's data with the lengths its braces give.
pub struct NestedData {
    /// Dimension lengths, outermost first (unlimited ones as the data sets them).
    pub shape: Vec<usize>,
    /// The values, in row-major order.
    pub values: Values,
}

/// One item of a data list: a constant, or a braced group of items.
enum Node {
    Leaf(Constant, Position),
    Group(Vec<Node>, Position),
}

/// Reads a whole data entry of a variable of atomic type `t` whose dimensions are `dims`
/// (length, unlimited); `fill` is what `_` stands for.
pub fn read_nested<R: BufRead>(
    reader: &mut DataReader<R>,
    dims: &[(usize, bool)],
    t: AtomicType,
    fill: &Values,
) -> anyhow::Result<NestedData> {
    let top = read_list(reader, None)?;
    // Segments of the dimensions: one starts at 0 and at each later unlimited dimension.
    let mut bounds = vec![0];
    bounds.extend((1..dims.len()).filter(|&k| dims[k].1));
    let mut layout = Layout {
        dims,
        bounds: &bounds,
        shape: dims
            .iter()
            .map(|&(len, unlimited)| if unlimited { 0 } else { len })
            .collect(),
        chars: t == AtomicType::Char,
    };
    layout.measure(&top, 0)?;
    let mut values = Values::empty(t);
    flatten(&top, t, fill, &mut values)?;
    Ok(NestedData {
        shape: layout.shape,
        values,
    })
}

fn read_list<R: BufRead>(
    reader: &mut DataReader<R>,
    open: Option<Position>,
) -> anyhow::Result<Vec<Node>> {
    let mut nodes = Vec::new();
    loop {
        match next_token(reader)? {
            Some(DataToken::Constant(c, at)) => nodes.push(Node::Leaf(c, at)),
            Some(DataToken::Open(at)) => nodes.push(Node::Group(read_list(reader, Some(at))?, at)),
            Some(DataToken::Close(at)) => match open {
                Some(_) => return Ok(nodes),
                None => bail!("{}: `}}` without its `{{`", place(&at)),
            },
            None => match open {
                Some(at) => bail!("{}: this `{{` is never closed", place(&at)),
                None => return Ok(nodes),
            },
        }
    }
}

/// The lengths being worked out.
struct Layout<'d> {
    dims: &'d [(usize, bool)],
    bounds: &'d [usize],
    shape: Vec<usize>,
    chars: bool,
}

impl Layout<'_> {
    /// Measures the items of segment `j`, growing the unlimited lengths to fit them.
    fn measure(&mut self, nodes: &[Node], j: usize) -> anyhow::Result<()> {
        let last = j + 1 == self.bounds.len();
        let end = self.bounds.get(j + 1).copied().unwrap_or(self.dims.len());
        let start = self.bounds[j];
        let items = if last {
            let mut n = 0;
            for node in nodes {
                n += match node {
                    Node::Leaf(Constant::Str(text), _) if self.chars => text.len(),
                    Node::Leaf(..) => 1,
                    Node::Group(_, at) => {
                        bail!("{}: braces where values were expected", place(at))
                    }
                };
            }
            n
        } else {
            for node in nodes {
                match node {
                    Node::Group(children, _) => self.measure(children, j + 1)?,
                    Node::Leaf(_, at) => bail!(
                        "{}: expected `{{`: the values of each index of an unlimited \
                         dimension after the first go in braces",
                        place(at)
                    ),
                }
            }
            nodes.len()
        };
        if self.dims[start].1 {
            let inner: usize = self.shape[start + 1..end].iter().product::<usize>().max(1);
            self.shape[start] = self.shape[start].max(items.div_ceil(inner));
        }
        Ok(())
    }
}

/// Appends every constant of `nodes`, depth first, converted to `t`.
fn flatten(nodes: &[Node], t: AtomicType, fill: &Values, out: &mut Values) -> anyhow::Result<()> {
    for node in nodes {
        match node {
            Node::Group(children, _) => flatten(children, t, fill, out)?,
            Node::Leaf(Constant::Fill, _) => {
                out.extend_from(fill);
            }
            Node::Leaf(c, at) => {
                push_constant(out, c, t).map_err(|m| anyhow!("{}: {m}", place(at)))?;
            }
        }
    }
    Ok(())
}
