"""The plumbing every room of the web process shares: the route table's context and app keys
(`context`), keys and scopes (`auth`), the one error translation (`errors`, `failures`,
`statuses`, `families`), the answers, one model each that writes its JSON and documents it
(`answers`, and the chat wires' own `chat_answers`), integer parsing (`integers`), response
headers (`headers`), the server's limits, logs and metrics (`serving`, `access_log`,
`server_log`, `metrics`) and the process's configuration (`web_config`, `local_key`).

Importing this package loads none of its modules: the CLI reads `answers` without aiohttp's
server. Import the module you need.
"""
