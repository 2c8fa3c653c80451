from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class AdminConfig(DjangoAdminConfig):
    """Django's admin with the project's site (config/admin_site.py) as `admin.site`, so that every
    model admin, ours and the installed apps', is registered on it."""

    default_site = "config.admin_site.AdminSite"
