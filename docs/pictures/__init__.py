"""Pictures of forms as a real client renders them: ``python -m docs.pictures.make_pictures``."""
