//! Every answer's body that `object_store` reads whole, capped while it streams: an
//! error answer's text (object_store puts it in its error), a listing (S3's pages, a
//! plain HTTP server's WebDAV `PROPFIND`), and the answer to any request but a GET (S3's
//! bulk delete, multipart uploads). Before, a server answering 403 with a body that never
//! ended, an endless `207` listing, or an endless answer to a delete, grew the process
//! past 2 GB in six seconds until it aborted. The values nctools GETs are streamed by
//! its own reader, which caps them ([`crate::object_kv`]).

use async_trait::async_trait;
use bytes::Bytes;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll};

use futures::{stream, Stream, StreamExt};
use http_body::Frame;
use http_body_util::StreamBody;
use object_store::client::{
    HttpError, HttpErrorKind, HttpRequest, HttpResponse, HttpResponseBody, HttpService,
};

/// The most bytes of an error answer's body kept: 64 KiB (the rest is not read).
pub const ERROR_BODY_CAP: usize = 64 << 10;

/// The most bytes of one listing, or of the answer to a request other than a GET: 64 MiB
/// (an S3 page of 1,000 names is about 300 KB); past it the answer is an error.
pub const LISTING_BODY_CAP: usize = 64 << 20;

/// reqwest's client with the caps above on what it answers.
#[derive(Debug)]
pub(crate) struct CappedClient(pub(crate) reqwest::Client);

/// What is done with a body past its cap.
#[derive(Debug, Clone, Copy)]
enum Past {
    /// Cut there (an error's text: the answer is a failure anyway).
    Cut,
    /// Fail (a listing cut short would silently miss names).
    Fail,
}

#[async_trait]
impl HttpService for CappedClient {
    async fn call(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        // Every answer object_store reads whole: anything but a GET, and a GET that
        // lists. A GET of a value is streamed by nctools' own reader, which caps it.
        let listing = request.method() != http::Method::GET
            || request.uri().query().is_some_and(|q| {
                q.contains("list-type=") || q.contains("comp=list") || q.contains("prefix=")
            });
        let response = self.0.call(request).await?;
        let (cap, past) = if !response.status().is_success() {
            (ERROR_BODY_CAP, Past::Cut)
        } else if listing {
            (LISTING_BODY_CAP, Past::Fail)
        } else {
            return Ok(response);
        };
        let (parts, body) = response.into_parts();
        let capped = capped(body.bytes_stream(), cap, past)
            .fuse()
            .map(|chunk| chunk.map(Frame::data));
        let body = HttpResponseBody::new(StreamBody::new(Shareable(Mutex::new(Box::pin(capped)))));
        Ok(HttpResponse::from_parts(parts, body))
    }
}

/// A stream that may be shared between threads (a response body must be): polled only
/// through `&mut`, so its lock is never taken.
struct Shareable<S>(Mutex<Pin<Box<S>>>);

impl<S: Stream> Stream for Shareable<S> {
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let inner = self
            .get_mut()
            .0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        inner.as_mut().poll_next(context)
    }
}

/// The chunks of `body` up to `cap` bytes; past it cut, or an error.
fn capped(
    body: stream::BoxStream<'static, Result<Bytes, HttpError>>,
    cap: usize,
    past: Past,
) -> impl Stream<Item = Result<Bytes, HttpError>> + Send + 'static {
    stream::unfold(
        (body, 0usize, false),
        move |(mut body, seen, done)| async move {
            if done {
                return None;
            }
            match body.next().await? {
                Err(e) => Some((Err(e), (body, seen, true))),
                Ok(chunk) => {
                    let total = seen.saturating_add(chunk.len());
                    if total <= cap {
                        return Some((Ok(chunk), (body, total, false)));
                    }
                    match past {
                        Past::Cut => {
                            let kept = chunk.slice(..cap - seen);
                            Some((Ok(kept), (body, cap, true)))
                        }
                        Past::Fail => {
                            let error = HttpError::new(
                                HttpErrorKind::Decode,
                                std::io::Error::other(format!(
                                    "the server's answer (a listing, or to a request other than a GET) is longer \
                                 than {cap} bytes"
                                )),
                            );
                            Some((Err(error), (body, total, true)))
                        }
                    }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(chunks: usize) -> stream::BoxStream<'static, Result<Bytes, HttpError>> {
        stream::iter((0..chunks).map(|_| Ok(Bytes::from(vec![b'x'; 1000])))).boxed()
    }

    #[test]
    fn an_error_body_is_cut_and_a_listing_fails_past_its_cap() -> std::io::Result<()> {
        let runtime = tokio::runtime::Builder::new_current_thread().build()?;
        let cut: Vec<_> = runtime.block_on(capped(body(100), 2500, Past::Cut).collect());
        let bytes: usize = cut.iter().map(|c| c.as_ref().map_or(0, Bytes::len)).sum();
        assert_eq!((cut.len(), bytes), (3, 2500));
        let failed: Vec<_> = runtime.block_on(capped(body(100), 2500, Past::Fail).collect());
        assert_eq!(failed.len(), 3);
        assert!(failed[2].is_err());
        let whole: Vec<_> = runtime.block_on(capped(body(2), 2500, Past::Fail).collect());
        assert!(whole.iter().all(Result::is_ok));
        Ok(())
    }
}
