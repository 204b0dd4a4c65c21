"""Renderers: state in, neutral `Message` out. They receive views and public events, never a hidden card."""
