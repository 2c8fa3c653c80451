import django.db.models.functions.text
from django.db import migrations, models

# On PostgreSQL the audit log refuses UPDATE and DELETE from anyone, the admin and raw SQL included.
# (TRUNCATE, which only the database owner's maintenance and the test runner use, is not a row event.)
AUDIT_APPEND_ONLY = """
CREATE OR REPLACE FUNCTION accounts_moderationaction_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the moderation audit log is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER accounts_moderationaction_append_only
    BEFORE UPDATE OR DELETE ON accounts_moderationaction
    FOR EACH ROW EXECUTE FUNCTION accounts_moderationaction_append_only();
"""
AUDIT_APPEND_ONLY_REVERSE = """
DROP TRIGGER IF EXISTS accounts_moderationaction_append_only ON accounts_moderationaction;
DROP FUNCTION IF EXISTS accounts_moderationaction_append_only();
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0006_bans_to_sanctions_tokens_usernames'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='user',
            options={'verbose_name': 'user', 'verbose_name_plural': 'users'},
        ),
        migrations.RemoveField(
            model_name='user',
            name='banned',
        ),
        migrations.AlterField(
            model_name='authtoken',
            name='expires_at',
            field=models.DateTimeField(),
        ),
        migrations.AddConstraint(
            model_name='user',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('username'), name='user_username_ci'),
        ),
        migrations.RunPython(
            _on_postgresql(AUDIT_APPEND_ONLY), _on_postgresql(AUDIT_APPEND_ONLY_REVERSE), elidable=False
        ),
    ]
