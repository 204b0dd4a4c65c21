"""Commands: the table that declares each one once (`table`), and what each does (`handlers`).

The table is data (names, help lines, who may use a command, where it is offered); the handlers register
under the table's names and are given `handlers.CommandDesk`, the part of the service they need, never the
whole service.
"""
