"""The engine that strings the stages together, and what is made of a whole pipeline.

* ``engine.py`` - ``Engine``: a pre-tokenizer and a model with the piece cache between them; both
  faces, the incremental encoder and the browser bridge reach ids through it;
* ``tokenizer_pipeline.py`` - a ``tokenizer.json``'s stages run in order for one text (ids, or
  every field with offsets); ``piece_fields.py`` - every field joined of each piece's, remembered;
  ``encoded.py`` - the ``Encoded`` result and HF's post-processing;
* ``blocks.py`` - text that arrives in chunks, regrouped into blocks that encode exactly on their
  own; ``stream_cuts.py`` - when a ``tokenizer.json`` pipeline may be cut so;
* ``tokenizer_json.py``, ``packed_tokenizer.py`` - a ``tokenizer.json`` (or its packed form) read
  into stages, and written back;
* ``view.py``, ``manifest.py`` - one view of either face, and the canonical form and hashes of what
  decides its ids.
"""
