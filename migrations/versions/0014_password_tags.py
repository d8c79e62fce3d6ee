"""password tags and the wrong-password digests: empires.password_tag (a short
keyed tag checked before scrypt), empires.guessing_told_at and
games.guessing_told_at (the owner's and the GM's last digest of wrong-password
mails); the per-sender lockout is gone and needs no column

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 05:00:00
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Empires on file get no tag here (their passwords are not known): each
    # gets one the first time its password is checked correct or set.
    with op.batch_alter_table('empires', schema=None) as batch_op:
        batch_op.add_column(sa.Column('password_tag', sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column('guessing_told_at', sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('guessing_told_at', sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_column('guessing_told_at')
    with op.batch_alter_table('empires', schema=None) as batch_op:
        batch_op.drop_column('guessing_told_at')
        batch_op.drop_column('password_tag')
