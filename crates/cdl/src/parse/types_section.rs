//! Type definitions of a `types:` section: enum, compound, vlen and opaque.

use std::io::BufRead;

use ncmodel::{CompoundField, TypeRef, UserType, UserTypeKind};

use super::constant::Constant;
use super::error::ErrorKind;
use super::header::Parser;
use super::lexer::{Keyword, Tok, Token};
use super::ParseError;

impl<R: BufRead> Parser<R> {
    /// The name of a type being defined, checked for duplicates in the group.
    fn new_type_name(&mut self) -> Result<(String, Token), ParseError> {
        let (name, tok) = self.name("a type name")?;
        if self.scope.has_type_here(&name) {
            return Err(self.error(
                ErrorKind::Duplicate,
                &tok,
                format!("type `{name}` is defined twice in the same group"),
            ));
        }
        Ok((name, tok))
    }

    /// Skips the optional `;` after a type definition.
    fn optional_semicolon(&mut self) -> Result<(), ParseError> {
        if self.peek_is(b';')? {
            self.next()?;
        }
        Ok(())
    }

    /// An integer constant (for enum values, opaque sizes and field dimensions).
    fn integer(&mut self, what: &str) -> Result<(i128, Token), ParseError> {
        let tok = self.next()?;
        match tok.kind {
            Tok::Const(Constant::Int { value, .. }) => Ok((value, tok)),
            _ => Err(self.unexpected(&tok, what)),
        }
    }

    /// `BASE enum NAME { A = 1, B = 2 }` (after `enum`).
    pub(crate) fn enum_decl(&mut self, base: TypeRef, first: &Token) -> Result<(), ParseError> {
        let base = match base {
            TypeRef::Atomic(t) if t.is_integer() => t,
            _ => {
                let e = self.error(
                    ErrorKind::UnknownType,
                    first,
                    "the base type of an enum must be an integer type",
                );
                return Err(e);
            }
        };
        let (name, _) = self.new_type_name()?;
        self.expect(b'{', "to start the enum members")?;
        let mut members: Vec<(String, i128)> = Vec::new();
        loop {
            let (member, tok) = self.name("an enum member name")?;
            if members.iter().any(|(m, _)| *m == member) {
                return Err(self.error(
                    ErrorKind::Duplicate,
                    &tok,
                    format!("enum member `{member}` is defined twice"),
                ));
            }
            self.expect(b'=', "after the enum member name")?;
            let (value, _) = self.integer("an integer value for the enum member")?;
            members.push((member, value));
            let sep = self.next()?;
            match sep.kind {
                Tok::Punct(b',') => {}
                Tok::Punct(b'}') => break,
                _ => return Err(self.unexpected(&sep, "`,` or `}` in the enum members")),
            }
        }
        self.scope.add_type(UserType {
            id: ncmodel::TypeId(0),
            name,
            group_path: Vec::new(),
            size: base.size(),
            kind: UserTypeKind::Enum { base, members },
        });
        self.optional_semicolon()
    }

    /// `opaque(SIZE) NAME` (after `opaque`).
    pub(crate) fn opaque_decl(&mut self) -> Result<(), ParseError> {
        self.expect(b'(', "after `opaque`")?;
        let (size, tok) = self.integer("the opaque size (an integer)")?;
        let Ok(size) = usize::try_from(size) else {
            return Err(self.error(ErrorKind::BadValue, &tok, "an opaque size must be positive"));
        };
        if size == 0 {
            return Err(self.error(ErrorKind::BadValue, &tok, "an opaque size must be positive"));
        }
        self.expect(b')', "after the opaque size")?;
        let (name, _) = self.new_type_name()?;
        if size as u128 > MAX_TYPE_SIZE {
            return Err(self.error(
                ErrorKind::BadValue,
                &tok,
                format!(
                    "opaque type `{name}`: a size of {size} bytes is over the limit of \
                     {MAX_TYPE_SIZE} bytes for one value of a type"
                ),
            ));
        }
        self.scope.add_type(UserType {
            id: ncmodel::TypeId(0),
            name,
            group_path: Vec::new(),
            size,
            kind: UserTypeKind::Opaque,
        });
        self.optional_semicolon()
    }

    /// `BASE(*) NAME` (after `(`).
    pub(crate) fn vlen_decl(&mut self, base: TypeRef) -> Result<(), ParseError> {
        self.expect(b'*', "in a vlen definition `type(*) name`")?;
        self.expect(b')', "in a vlen definition `type(*) name`")?;
        let (name, _) = self.new_type_name()?;
        self.scope.add_type(UserType {
            id: ncmodel::TypeId(0),
            name,
            group_path: Vec::new(),
            size: 0,
            kind: UserTypeKind::Vlen { base },
        });
        self.optional_semicolon()
    }

    /// `compound NAME { TYPE f(2,3), g ; ... }` (after `compound`).
    pub(crate) fn compound_decl(&mut self) -> Result<(), ParseError> {
        let (name, name_tok) = self.new_type_name()?;
        self.expect(b'{', "to start the compound fields")?;
        let mut fields: Vec<CompoundField> = Vec::new();
        loop {
            let tok = self.next()?;
            if tok.kind == Tok::Punct(b'}') && !fields.is_empty() {
                break;
            }
            let type_ref = match tok.kind {
                Tok::Keyword(Keyword::Type(t)) => TypeRef::Atomic(t),
                Tok::Ident(_) | Tok::Path(_) => self.type_ref(&tok)?,
                _ => return Err(self.unexpected(&tok, "a field type")),
            };
            loop {
                let (field, ftok) = self.name("a field name")?;
                if fields.iter().any(|f| f.name == field) {
                    return Err(self.error(
                        ErrorKind::Duplicate,
                        &ftok,
                        format!("field `{field}` is defined twice"),
                    ));
                }
                let mut dims = Vec::new();
                if self.peek_is(b'(')? {
                    self.next()?;
                    loop {
                        let (d, dtok) = self.integer("a field dimension (a positive integer)")?;
                        match usize::try_from(d) {
                            Ok(d) if d > 0 => dims.push(d),
                            _ => {
                                return Err(self.error(
                                    ErrorKind::BadValue,
                                    &dtok,
                                    "a field dimension must be positive",
                                ))
                            }
                        }
                        let sep = self.next()?;
                        match sep.kind {
                            Tok::Punct(b',') => {}
                            Tok::Punct(b')') => break,
                            _ => {
                                return Err(
                                    self.unexpected(&sep, "`,` or `)` in the field dimensions")
                                )
                            }
                        }
                    }
                }
                fields.push(CompoundField {
                    name: field,
                    offset: 0,
                    type_ref,
                    dims,
                });
                let sep = self.next()?;
                match sep.kind {
                    Tok::Punct(b',') => {}
                    Tok::Punct(b';') => break,
                    _ => return Err(self.unexpected(&sep, "`,` or `;` after the field")),
                }
            }
        }
        let size = fields
            .iter()
            .try_fold(0u128, |sum, f| sum.checked_add(self.field_size(f)?))
            .unwrap_or(u128::MAX);
        if size > MAX_TYPE_SIZE {
            let shown = if size == u128::MAX {
                "more than 2^128".to_string()
            } else {
                size.to_string()
            };
            return Err(self.error(
                ErrorKind::BadValue,
                &name_tok,
                format!(
                    "compound type `{name}`: its fields take at least {shown} bytes, over the \
                     limit of {MAX_TYPE_SIZE} bytes for one value of a type"
                ),
            ));
        }
        let id = self.scope.add_type(UserType {
            id: ncmodel::TypeId(0),
            name,
            group_path: Vec::new(),
            size: 0,
            kind: UserTypeKind::Compound { fields },
        });
        self.scope.compound_sizes.insert(id, size);
        self.optional_semicolon()
    }

    /// The bytes one value of `t` takes at least (fields without their padding; strings
    /// and vlens as the pointer or `nc_vlen_t` held in memory); `None` past `u128`.
    fn value_size(&self, t: TypeRef) -> Option<u128> {
        let id = match t {
            TypeRef::Atomic(a) => return Some(a.size() as u128),
            TypeRef::User(id) => id,
        };
        let user = self.scope.user_type(id)?;
        match &user.kind {
            // Worked out at its declaration (a compound's fields are declared before it).
            UserTypeKind::Compound { .. } => self.scope.compound_sizes.get(&id).copied(),
            UserTypeKind::Vlen { .. } => Some(2 * size_of::<usize>() as u128),
            UserTypeKind::Opaque | UserTypeKind::Enum { .. } => Some(user.size as u128),
        }
    }

    /// The bytes of a compound field: its elements times the size of its type.
    fn field_size(&self, field: &CompoundField) -> Option<u128> {
        field
            .dims
            .iter()
            .try_fold(self.value_size(field.type_ref)?, |n, d| {
                n.checked_mul(*d as u128)
            })
    }
}

/// The largest size in bytes of one value of a user-defined type (an opaque's size, a
/// compound's fields): the reference ncgen takes an opaque size only as a positive `int`,
/// and HDF5 holds a type's size in 32 bits (docs/ncgen.md, "Sizes").
pub(crate) const MAX_TYPE_SIZE: u128 = 2_147_483_647;
