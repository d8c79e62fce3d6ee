"""render at send time: a report keeps only its data (the text is rendered from
it when mailed or asked for again); a big game's turn bulletin, stored once per
turn; an outbox mail may be built when it goes (body NULL, from its report or
bulletin) and a bulletin mail names its recipients only in the envelope (bcc)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 05:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bulletins",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_bulletins_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bulletins")),
        sa.UniqueConstraint("game_id", "turn", name=op.f("uq_bulletins_game_id_turn")),
    )
    # Nothing reads a report's text any more; the data renders it the same way.
    op.execute("ALTER TABLE reports DROP COLUMN text")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.alter_column("body", existing_type=sa.LargeBinary(), nullable=True)
        batch_op.add_column(sa.Column("report_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("bulletin_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("bcc", sa.JSON(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_outbox_report_id_reports"), "reports", ["report_id"], ["id"], ondelete="SET NULL"
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_outbox_bulletin_id_bulletins"),
            "bulletins",
            ["bulletin_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    # Unsent mails still to be built have no bytes to keep: they are dropped
    # (this schema cannot build them); sent ones keep their rows, emptied as
    # an old sent mail's bytes are.
    outbox = sa.table(
        "outbox", sa.column("body", sa.LargeBinary()), sa.column("sent_at", sa.DateTime(timezone=True))
    )
    op.execute(outbox.delete().where(outbox.c.body.is_(None), outbox.c.sent_at.is_(None)))
    op.execute(outbox.update().where(outbox.c.body.is_(None)).values(body=b""))
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_outbox_bulletin_id_bulletins"), type_="foreignkey")
        batch_op.drop_constraint(batch_op.f("fk_outbox_report_id_reports"), type_="foreignkey")
        batch_op.drop_column("bcc")
        batch_op.drop_column("bulletin_id")
        batch_op.drop_column("report_id")
        batch_op.alter_column("body", existing_type=sa.LargeBinary(), nullable=False)
    op.add_column("reports", sa.Column("text", sa.Text(), nullable=False, server_default=""))
    op.drop_table("bulletins")
