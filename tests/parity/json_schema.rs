//! The JSON-Schema-Test-Suite through the `json_schema` check.
