"""What the running process leans on, whatever it is doing: where the shipped
folders are (``resources``), log lines for the service (``logs``), the garbage
collector held off through a burst of work (``collector``), compact JSON text
for the database's columns and the JSON report (``jsontext``).

None of it knows of games, mail or rows: every layer may use it, and it uses
no other part of turnproc but the configuration.
"""
