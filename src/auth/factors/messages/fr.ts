import type { Translation } from '../../../plugin-api.ts';
import type { FactorsEnglish } from './en.ts';

export const fr = {
  'page.title': 'Double authentification',
  'codes.title': 'Vos codes de récupération',
  'codes.intro':
    'Chaque code vous connecte une fois si vous perdez votre application d’authentification ou votre clé d’accès. Conservez-les dès maintenant en lieu sûr : ils ne seront plus affichés.',

  'totp.title': 'Application d’authentification',
  'totp.setupTitle': 'Configurer une application d’authentification',
  'totp.setupIntro':
    'Scannez le code avec une application d’authentification (par exemple 1Password, Google Authenticator ou Aegis), puis saisissez le code à 6 chiffres qu’elle affiche.',
  'totp.qrAlt': 'QR code pour votre application d’authentification',
  'totp.keyByHand': 'Ou saisissez cette clé à la main :',
  'totp.code': 'Code de l’application',
  'totp.turnOn': 'Activer',
  'totp.cancel': 'Annuler la configuration',
  'totp.setup': 'Configurer une application d’authentification',
  'totp.sudoHint': 'Il vous sera d’abord demandé de confirmer votre identité.',
  'totp.enabled': 'Activée.',
  'totp.remove': 'Supprimer l’application d’authentification',
  'totp.removeConfirm': 'Supprimer l’application d’authentification de votre compte ?',

  'passkeys.title': 'Clés d’accès',
  'passkeys.none': 'Aucune clé d’accès pour l’instant.',
  'passkeys.name': 'Nom',
  'passkeys.added': 'Ajoutée le',
  'passkeys.lastUsed': 'Dernière utilisation',
  'passkeys.never': 'Jamais',
  'passkeys.actions': 'Actions',
  'passkeys.remove': 'Supprimer',
  'passkeys.removeConfirm': ({ name }) => `Supprimer la clé d’accès « ${name} » ?`,
  'passkeys.newName': 'Nom de la nouvelle clé d’accès',
  'passkeys.placeholder': 'par ex. Ordinateur portable',
  'passkeys.add': 'Ajouter une clé d’accès',

  'recovery.title': 'Codes de récupération',
  'recovery.remaining': ({ count }, f) =>
    f.plural(count, {
      one: 'Il reste # code de récupération inutilisé.',
      other: 'Il reste # codes de récupération inutilisés.',
    }),
  'recovery.create': 'Créer de nouveaux codes de récupération',

  'action.twoFactor': 'Double authentification',
  'action.enroll': 'Configurer la double authentification',
  'action.recoveryCodes': 'Conservez vos codes de récupération',
  'step.method': 'Méthode',
  'step.totpCode': 'Code de l’application d’authentification',
  'step.recoveryCode': 'Code de récupération',
  'step.code': 'Code',
  'step.usePasskey': 'Utiliser une clé d’accès',
  'enroll.intro':
    'Votre organisation exige un second facteur. Scannez ce code avec une application d’authentification, puis saisissez le code à 6 chiffres qu’elle affiche.',
  'enroll.keyByHand': 'Ou saisissez cette clé :',
  'enroll.codeRequired': 'Saisissez le code de l’application.',
  'enroll.chooseFactor': 'Choisissez « totp » ou « passkey ».',
  'recoveryStep.intro':
    'Chaque code vous connecte une fois si vous perdez votre application d’authentification. Conservez-les en lieu sûr : ils ne sont affichés que maintenant.',
  'recoveryStep.saved': 'J’ai conservé ces codes',
  'recoveryStep.confirm': 'Confirmez que vous avez conservé les codes.',

  'factor.totp': 'Application d’authentification',
  'factor.passkey': 'Clé d’accès',

  'error.unknownFactor': 'Méthode inconnue.',
  'error.proofRequired': 'Une preuve d’identité est requise.',
  'error.notAccepted': 'Cette preuve d’identité n’a pas été acceptée. Veuillez réessayer.',
  'error.totpNotEnrolled': 'Aucune application d’authentification n’est configurée.',
  'error.passkeyNotEnrolled': 'Aucune clé d’accès de ce type n’est enregistrée.',
  'error.noRecoveryCodes':
    'Les codes de récupération n’existent qu’avec une méthode de double authentification configurée.',
  'error.required':
    'La double authentification est obligatoire pour votre compte : ajoutez une autre application d’authentification ou une autre clé d’accès avant de supprimer celle-ci.',
  'error.totpExists': 'Une application d’authentification est déjà configurée.',
  'error.tooManyPasskeys': ({ max }, f) =>
    f.plural(max, {
      one: 'Vous pouvez enregistrer au plus # clé d’accès.',
      other: 'Vous pouvez enregistrer au plus # clés d’accès.',
    }),
  'error.passkeyRejected': 'Cette clé d’accès n’a pas permis de vous connecter.',
  'error.passkeyRejectedHint':
    'Cette clé d’accès n’a pas permis de vous connecter. Réessayez ou utilisez votre mot de passe.',

  'answer.totpStart': 'Scannez le QR code, puis saisissez un code de l’application.',
  'answer.passkeyStart': 'Suivez les instructions de votre navigateur pour créer une clé d’accès.',
  'answer.totpEnabled': 'Application d’authentification activée.',
  'answer.passkeyAdded': 'Clé d’accès ajoutée.',
  'answer.totpRemoved': 'Application d’authentification supprimée.',
  'answer.passkeyRemoved': 'Clé d’accès supprimée.',
  'answer.codesCreated':
    'De nouveaux codes de récupération ont été créés ; les anciens ne fonctionnent plus.',
  'answer.signedIn': 'Vous êtes connecté.',

  'script.waiting': 'En attente de votre clé d’accès…',
  'script.notCreated': 'La clé d’accès n’a pas été créée.',
  'script.notUsed': 'La clé d’accès n’a pas été utilisée.',
  'script.unavailable': 'Aucune clé d’accès n’est disponible.',
  'script.failed': 'Une erreur s’est produite.',
  'script.codesTitle': 'Vos codes de récupération (affichés une seule fois)',
  'script.codesSaved': 'Je les ai conservés',
} satisfies Translation<FactorsEnglish>;
