//! Attribute definitions: `v:name = values ;`, `:name = ...`, typed forms, and the
//! conversion of their values (atomic and user-defined types).

use std::io::BufRead;

use ncmodel::{AtomicType, Attribute, TypeRef, UserTypeKind, Value, Values};

use super::constant::{Constant, DataToken};
use super::convert::{convert_constants, infer_type, push_constant};
use super::data::DataList;
use super::error::{ErrorKind, ParseError, Position};
use super::header::Parser;
use super::lexer::Token;
use super::scope::Scope;

/// A parsed value list: constants and brace-enclosed sublists.
#[derive(Debug, Clone)]
enum Item {
    Const(Constant, Position),
    List(Vec<Item>, Position),
}

impl Item {
    fn pos(&self) -> Position {
        match self {
            Item::Const(_, p) | Item::List(_, p) => *p,
        }
    }
}

/// A conversion failure at a position.
type Failure = (Position, String);

impl<R: BufRead> Parser<R> {
    /// The rest of an attribute definition after its `:` (the `;` is left).
    pub(crate) fn attribute(
        &mut self,
        var: Option<String>,
        ty: Option<TypeRef>,
        _start: &Token,
    ) -> Result<(), ParseError> {
        let (name, name_tok) = self.name("an attribute name after `:`")?;
        self.expect(b'=', "after the attribute name")?;
        let items = self.value_list()?;
        let var_type = var
            .as_ref()
            .and_then(|v| self.scope.current_ref().var(v))
            .map(|v| v.type_ref);
        let target = match (ty, var_type) {
            (Some(t), _) => Some(t),
            (None, Some(vt)) if name == "_FillValue" => Some(vt),
            _ => None,
        };
        let converted = match target {
            Some(t) => convert_items(&self.scope, &items, t).map(|v| (t, v)),
            None => untyped(&items),
        };
        let (type_ref, values) = match converted {
            Ok(ok) => ok,
            Err((pos, msg)) => {
                let mut e = ParseError::new(
                    ErrorKind::BadValue,
                    pos,
                    format!("bad value for attribute `{name}`: {msg}"),
                );
                self.lex.input.decorate(&mut e, pos);
                if pos.line == name_tok.pos.line && target.is_none() {
                    e = e.with_hint(
                        "give the attribute a type, like `int64 v:att = ...` or `string :att = ...`",
                    );
                }
                return Err(e);
            }
        };
        let att = Attribute {
            name,
            type_ref,
            values,
        };
        let group = self.scope.current();
        match var {
            Some(v) => {
                if let Some(var) = group.vars.iter_mut().find(|x| x.name == v) {
                    var.atts.push(att);
                }
            }
            None => group.atts.push(att),
        }
        Ok(())
    }

    /// A value list up to (and including) its `;`, as a tree.
    fn value_list(&mut self) -> Result<Vec<Item>, ParseError> {
        let mut list = DataList::new();
        let mut stack: Vec<(Vec<Item>, Position)> = vec![(Vec::new(), Position::START)];
        while let Some(tok) = list.step(&mut self.lex)? {
            match tok {
                DataToken::Constant(c, pos) => {
                    if let Some(top) = stack.last_mut() {
                        top.0.push(Item::Const(c, pos));
                    }
                }
                DataToken::Open(pos) => stack.push((Vec::new(), pos)),
                DataToken::Close(_) => {
                    if let Some((items, pos)) = stack.pop() {
                        if let Some(top) = stack.last_mut() {
                            top.0.push(Item::List(items, pos));
                        }
                    }
                }
            }
        }
        // The list consumed the `;`: give it back for the statement to consume.
        self.unread_semicolon();
        Ok(stack.pop().map(|(items, _)| items).unwrap_or_default())
    }
}

/// Converts an untyped attribute's values: the type comes from the constants.
fn untyped(items: &[Item]) -> Result<(TypeRef, Values), Failure> {
    let mut constants = Vec::with_capacity(items.len());
    let mut positions = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Item::Const(c, p) => {
                constants.push(c.clone());
                positions.push(*p);
            }
            Item::List(_, p) => {
                return Err((
                    *p,
                    "braces need a typed attribute of a user-defined type".into(),
                ))
            }
        }
    }
    let at = |i: usize| positions.get(i).copied().unwrap_or(Position::START);
    let t = infer_type(&constants).map_err(|e| (at(e.index), e.message))?;
    let values = convert_constants(&constants, t).map_err(|e| (at(e.index), e.message))?;
    Ok((TypeRef::Atomic(t), values))
}

/// Converts items to values of type `t` (atomic or user-defined).
fn convert_items(scope: &Scope, items: &[Item], t: TypeRef) -> Result<Values, Failure> {
    match t {
        TypeRef::Atomic(a) => {
            let mut out = Values::empty(a);
            push_flat(&mut out, items, a)?;
            Ok(out)
        }
        TypeRef::User(id) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(user_value(scope, item, id)?);
            }
            Ok(Values::User(out))
        }
    }
}

/// Appends constants (braces not allowed) converted to `a`.
fn push_flat(out: &mut Values, items: &[Item], a: AtomicType) -> Result<(), Failure> {
    for item in items {
        match item {
            Item::Const(c, p) => push_constant(out, c, a).map_err(|m| (*p, m))?,
            Item::List(_, p) => {
                return Err((
                    *p,
                    format!("expected a `{}` value, found `{{`", a.cdl_name()),
                ))
            }
        }
    }
    Ok(())
}

/// One value of the user type `id`.
fn user_value(scope: &Scope, item: &Item, id: ncmodel::TypeId) -> Result<Value, Failure> {
    let Some(ut) = scope.user_type(id) else {
        return Err((item.pos(), "unknown type".into()));
    };
    match (&ut.kind, item) {
        (UserTypeKind::Enum { members, .. }, Item::Const(c, p)) => match c {
            Constant::Name(path) => {
                let name = path.last().map(String::as_str).unwrap_or_default();
                let name = name.rsplit_once('.').map_or(name, |(_, m)| m);
                members
                    .iter()
                    .find(|(m, _)| m == name)
                    .map(|(_, v)| Value::Enum(*v))
                    .ok_or_else(|| {
                        (
                            *p,
                            format!("`{name}` is not a member of enum `{}`", ut.name),
                        )
                    })
            }
            Constant::Int { value, .. } => Ok(Value::Enum(*value)),
            Constant::Fill => Ok(Value::Enum(members.first().map_or(0, |m| m.1))),
            other => Err((
                *p,
                format!(
                    "expected a member of enum `{}`, found {}",
                    ut.name,
                    other.describe()
                ),
            )),
        },
        (UserTypeKind::Opaque, Item::Const(c, p)) => match c {
            Constant::Opaque(bytes) => {
                if bytes.len() > ut.size {
                    return Err((
                        *p,
                        format!(
                            "opaque constant longer than the {} bytes of `{}`",
                            ut.size, ut.name
                        ),
                    ));
                }
                let mut b = bytes.clone();
                b.resize(ut.size, 0);
                Ok(Value::Opaque(b))
            }
            Constant::Fill => Ok(Value::Opaque(vec![0; ut.size])),
            other => Err((
                *p,
                format!(
                    "expected an opaque constant `0x...`, found {}",
                    other.describe()
                ),
            )),
        },
        (UserTypeKind::Vlen { base }, Item::List(items, _)) => {
            Ok(Value::Vlen(convert_items(scope, items, *base)?))
        }
        (
            UserTypeKind::Vlen {
                base: TypeRef::Atomic(AtomicType::Char),
            },
            Item::Const(c @ Constant::Str(_), p),
        ) => {
            let mut out = Values::empty(AtomicType::Char);
            push_constant(&mut out, c, AtomicType::Char).map_err(|m| (*p, m))?;
            Ok(Value::Vlen(out))
        }
        (UserTypeKind::Compound { fields }, Item::List(items, p)) => {
            if items.len() > fields.len() {
                return Err((
                    items[fields.len()].pos(),
                    format!(
                        "more values than the {} fields of `{}`",
                        fields.len(),
                        ut.name
                    ),
                ));
            }
            let mut out = Vec::with_capacity(fields.len());
            for (i, f) in fields.iter().enumerate() {
                let Some(item) = items.get(i) else {
                    return Err((
                        *p,
                        format!("missing a value for field `{}` of `{}`", f.name, ut.name),
                    ));
                };
                let count: usize = f.dims.iter().product();
                let values = match (f.type_ref, item) {
                    (TypeRef::Atomic(a), Item::List(inner, _)) => {
                        let mut v = Values::empty(a);
                        push_flat(&mut v, inner, a)?;
                        v
                    }
                    (TypeRef::Atomic(a), Item::Const(..)) => {
                        let mut v = Values::empty(a);
                        push_flat(&mut v, std::slice::from_ref(item), a)?;
                        if let Values::Char(c) = &mut v {
                            c.resize(count.max(1), 0);
                        }
                        v
                    }
                    (TypeRef::User(_), Item::List(inner, _)) if count > 1 => {
                        convert_items(scope, inner, f.type_ref)?
                    }
                    (TypeRef::User(_), _) => {
                        convert_items(scope, std::slice::from_ref(item), f.type_ref)?
                    }
                };
                out.push(values);
            }
            Ok(Value::Compound(out))
        }
        (_, item) => Err((
            item.pos(),
            format!("this value does not fit type `{}`", ut.name),
        )),
    }
}
