"""Who is on the line: SIP participant attributes and outbound dialing."""
