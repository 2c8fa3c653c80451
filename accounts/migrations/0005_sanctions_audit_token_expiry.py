import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import accounts.models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_feed'),
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
        migrations.CreateModel(
            name='ModerationAction',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('action', models.CharField(choices=[('sanction', 'Sanction'), ('revoke', 'Revoke'), ('abort', 'Abort'), ('dismiss', 'Dismiss'), ('remove_player', 'Remove Player')], max_length=32)),
                ('target_type', models.CharField(max_length=32)),
                ('target_id', models.BigIntegerField()),
                ('subject_user_id', models.BigIntegerField(blank=True, db_index=True, null=True)),
                ('reason', models.TextField()),
                ('details', models.JSONField(blank=True, default=dict)),
                ('source', models.CharField(help_text='api or admin', max_length=8)),
                ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                ('moderator', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'moderation action',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='Sanction',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('ban', 'ban (every request refused)'), ('queue_ban', 'queue ban (no tickets, no joins)')], max_length=16)),
                ('reason', models.TextField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('expires_at', models.DateTimeField(blank=True, help_text='Empty: until revoked.', null=True)),
                ('revoked_at', models.DateTimeField(blank=True, null=True)),
                ('revoke_note', models.TextField(blank=True)),
                ('moderator', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('revoked_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sanctions', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at', '-id'],
                'permissions': [('revoke_sanction', 'Can revoke a sanction')],
                'indexes': [models.Index(fields=['user', 'kind'], name='sanction_user_kind')],
            },
        ),
        migrations.AlterModelOptions(
            name='sidebias',
            options={'verbose_name_plural': 'side biases'},
        ),
        migrations.AlterModelManagers(
            name='user',
            managers=[
                ('objects', accounts.models.CaseInsensitiveUserManager()),
            ],
        ),
        migrations.AddField(
            model_name='authtoken',
            name='expires_at',
            field=models.DateTimeField(null=True),
        ),
        migrations.AddField(
            model_name='authtoken',
            name='last_used_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
