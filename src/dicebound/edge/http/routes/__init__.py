"""One router per resource of the service (docs/service.md; its layers are in
docs/design/store-and-service.md)."""
