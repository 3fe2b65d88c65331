#[derive(Debug, Default, Clone)]
pub struct Request {
    url: String,
    method: String,
    headers: Vec<(String, String)>,
    timeout: Option<u32>,
}

#[derive(Default)]
pub struct RequestBuilder {
    inner: Request,
}

impl RequestBuilder {
    pub fn new(url: impl Into<String>) -> Self {
        let mut inner = Request::default();
        inner.url = url.into();
        inner.method = "GET".to_owned();
        RequestBuilder { inner }
    }

    pub fn method(mut self, method: &str) -> Self {
        self.inner.method = method.to_uppercase();
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.inner.headers.push((name.into(), value.into()));
        self
    }

    pub fn timeout(mut self, seconds: u32) -> Self {
        self.inner.timeout = Some(seconds);
        self
    }

    pub fn build(self) -> Request {
        self.inner
    }
}
