"""Edit languages: each compiles a request into a plan on the document as read."""
