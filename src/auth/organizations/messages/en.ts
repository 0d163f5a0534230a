import type { EnglishCatalog } from '../../../plugin-api.ts';

/** The organizations plugin's texts in English: the typed source of its other languages. */
export const en = {
  'list.title': 'Organizations',
  'list.intro': 'Organizations share projects and other data between their members, each with a role.',
  'list.none': 'You are not a member of any organization yet.',
  'list.active': 'active',
  'list.actIn': 'Act in',
  'list.name': 'Name',
  'list.slug': 'Slug',
  'list.yourRole': 'Your role',
  'list.switch': 'Switch',
  'list.actInNone': 'Act in no organization',
  'create.title': 'Create an organization',
  'create.slug': 'Slug (optional)',
  'create.slugHint': 'Lower-case letters, digits and dashes; made from the name when left empty.',
  'create.submit': 'Create',
  'org.title': 'Organization',
  'org.none': 'No such organization.',
  'org.yours': 'Your organizations',
  'org.facts': ({ slug, role }: { slug: string; role: string }) => `Slug ${slug} · your role: ${role}`,
  'org.actHere': 'Act in this organization',
  'org.you': 'you',
  'org.roleOf': ({ username }: { username: string }) => `Role of ${username}`,
  'org.save': 'Save',
  'org.leave': 'Leave',
  'org.remove': 'Remove',
  'org.members': 'Members',
  'org.member': 'Member',
  'org.role': 'Role',
  // The built-in roles' names, as a sentence uses them (an application's own roles keep their names).
  'role.owner': 'owner',
  'role.admin': 'admin',
  'role.member': 'member',
  'org.actions': 'Actions',
  'org.roles': 'Roles',
  'org.rolesHint':
    'Owners and admins may do everything; owners alone manage owners and delete the organization. Other roles hold the permissions the server gives them.',
  'org.invite': 'Invite someone',
  'org.email': 'Email',
  'org.sendInvitation': 'Send invitation',
  'org.openInvitations': 'Open invitations',
  'org.invitationLine': ({ role, inviter, until }: { role: string; inviter: string; until: string }) =>
    `${role} · by ${inviter} · until ${until}`,
  'org.withdraw': 'Withdraw',
  'org.deleteTitle': 'Delete the organization',
  'org.deleteIntro':
    'Its members lose access, and its projects and other data are deleted. This asks you to confirm who you are.',
  'org.delete': ({ name }: { name: string }) => `Delete ${name}`,
  'org.all': 'All your organizations',
  'invite.title': 'Invitation',
  'invite.gone': 'This invitation is invalid, was revoked, was already used or has expired.',
  'invite.signInFirst': 'Sign in first, then open the link again.',
  'invite.signIn': 'Sign in',
  'invite.otherAddress': ({ email }: { email: string }) =>
    `This invitation was sent to another address than yours (${email}): sign in with the account whose address received it.`,
  'invite.join': ({ name }: { name: string }) => `Join ${name}`,
  'invite.confirmAndJoinIntro': ({ email }: { email: string }) => `Confirm that ${email} is yours, and join.`,
  'invite.confirmAndJoin': ({ name }: { name: string }) => `Confirm my address and join ${name}`,
  'invite.unconfirmed': ({ email }: { email: string }) =>
    `Your address ${email} is not confirmed yet. We can email it a link: open it while signed in to this account to confirm the address and join.`,
  'invite.emailMe': 'Email me a confirmation link',
  'invite.intro': ({ name }: { name: string }) =>
    `You are invited to join ${name}. Accept it while signed in with the address the invitation was sent to.`,
  'switcher.label': 'Active organization',
  'switcher.none': 'No organization',
  'switcher.submit': 'Switch',
  'answer.created': ({ name }: { name: string }) => `Organization ${name} created.`,
  'answer.updated': 'Organization updated.',
  'answer.deleted': ({ name }: { name: string }) => `Organization ${name} deleted.`,
  'answer.invited': ({ email }: { email: string }) => `Invitation sent to ${email}.`,
  'answer.roleChanged': 'Role changed.',
  'answer.left': 'You left the organization.',
  'answer.removed': 'Member removed.',
  'answer.noActive': 'No active organization.',
  'answer.actingIn': ({ name }: { name: string }) => `You now act in ${name}.`,
  'answer.withdrawn': ({ email }: { email: string }) => `The invitation to ${email} was withdrawn.`,
  'answer.joined': ({ name }: { name: string }) => `You joined ${name}.`,
  'answer.proofSent': ({ email }: { email: string }) =>
    `A link that confirms ${email} is on its way. Open it while signed in to this account.`,
  'answer.invitationInvalid': 'This invitation is invalid, was already used or has expired.',
  'answer.acceptWith': 'Accept with POST /organizations/invitations/accept {token}.',
  'error.roleOneOf': ({ roles }: { roles: string }) => `The role must be one of: ${roles}.`,
  'error.nameBlank': 'The name cannot be blank.',
  'error.slugTaken': 'This slug is taken.',
  'error.ownerInvitesOwner': 'Only an owner may invite an owner.',
  'error.noSuchOrganization': 'No such organization of yours.',
  'error.lastOwner': 'An organization keeps at least one owner: make another member an owner first.',
  'error.organizationNotFound': 'Organization not found.',
  'error.memberNotFound': 'Member not found.',
  'error.invitationNotFound': 'Invitation not found.',
  'error.ownerOnly': 'Only an owner of the organization may do this.',
  'error.managerOnly': 'Only an owner or an admin of the organization may do this.',
  'error.roleLacks': ({ permission }: { permission: string }) =>
    `Your role in the organization does not hold ${permission}.`,
  'error.ownerChangesOwner': 'Only an owner may make or change an owner.',
  'error.ownerRemovesOwner': 'Only an owner may remove an owner.',
  'error.ownerWithdrawsOwner': 'Only an owner may withdraw an owner invitation.',
  'error.otherAddress':
    'This invitation was sent to another address: sign in with the account whose confirmed email received it.',
  'error.unconfirmed':
    'Confirm your email address first: the invitation page sends you a link that confirms it, then the same invitation link lets you join.',
  'error.proofInvalid':
    'This confirmation link is invalid, was already used or has expired: ask for a new one on the invitation page.',
  'error.alreadyConfirmed': 'Your address is already confirmed: accept the invitation.',
  'mail.invite.subject': ({ name }: { name: string }) => `Join ${name}`,
  'mail.invite.intro': ({
    inviter,
    name,
    role,
    email,
  }: {
    inviter: string;
    name: string;
    role: string;
    email: string;
  }) =>
    `${inviter} invites you to join the organization ${name} as ${role}. Sign in with this address (${email}) and follow the link within 7 days. It works once.`,
  'mail.invite.link': ({ name }: { name: string }) => `Join ${name}`,
  'mail.invite.outro': 'If you do not want to join, ignore this email.',
  'mail.proof.subject': ({ name }: { name: string }) => `Confirm your address to join ${name}`,
  'mail.proof.intro': ({ username, email, name }: { username: string; email: string; name: string }) =>
    `Someone signed in as ${username} asked to confirm that ${email} is theirs, to join ${name}. Open the link within 24 hours while signed in as ${username} and press the button.`,
  'mail.proof.link': ({ name }: { name: string }) => `Confirm and join ${name}`,
  'mail.proof.outro': 'If it was not you, ignore this email: nothing changes.',
} as const satisfies EnglishCatalog;

export type OrganizationsEnglish = typeof en;
